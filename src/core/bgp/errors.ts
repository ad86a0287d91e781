/**
 * neutron-dynamic-routing's errors (`extensions/bgp.py`, `extensions/bgp_dragentscheduler.py`),
 * with the base class that gives each its status.
 */
import { define } from '../errors.js';

export const BgpSpeakerNotFound = define<{ id: unknown }>(
  'BgpSpeakerNotFound',
  'NotFound',
  'BGP speaker %(id)s could not be found.',
);
export const BgpPeerNotFound = define<{ id: unknown }>(
  'BgpPeerNotFound',
  'NotFound',
  'BGP peer %(id)s could not be found.',
);
/** A NotFound in n-d-r (404), though it means "this peer has no password to change". */
export const BgpPeerNotAuthenticated = define<{ bgp_peer_id: unknown }>(
  'BgpPeerNotAuthenticated',
  'NotFound',
  'BGP peer %(bgp_peer_id)s not authenticated.',
);
export const BgpSpeakerPeerNotAssociated = define<{ bgp_peer_id: unknown; bgp_speaker_id: unknown }>(
  'BgpSpeakerPeerNotAssociated',
  'NotFound',
  'BGP peer %(bgp_peer_id)s is not associated with BGP speaker %(bgp_speaker_id)s.',
);
export const BgpSpeakerNetworkNotAssociated = define<{ network_id: unknown; bgp_speaker_id: unknown }>(
  'BgpSpeakerNetworkNotAssociated',
  'NotFound',
  'Network %(network_id)s is not associated with BGP speaker %(bgp_speaker_id)s.',
);
export const BgpSpeakerNetworkBindingError = define<{ network_id: unknown; bgp_speaker_id: unknown }>(
  'BgpSpeakerNetworkBindingError',
  'Conflict',
  'Network %(network_id)s is already bound to BgpSpeaker %(bgp_speaker_id)s.',
);
export const DuplicateBgpPeerIpException = define<{ bgp_speaker_id: unknown; peer_ip: unknown; bgp_peer_id: unknown }>(
  'DuplicateBgpPeerIpException',
  'Conflict',
  'BGP Speaker %(bgp_speaker_id)s is already configured to peer with a BGP Peer at %(peer_ip)s, it cannot peer with BGP Peer %(bgp_peer_id)s.',
);
export const InvalidBgpPeerMd5Authentication = define(
  'InvalidBgpPeerMd5Authentication',
  'BadRequest',
  'A password must be supplied when using auth_type md5.',
);

// ---- the DR agent scheduler ----
/** An AgentNotFound subclass in n-d-r, so a 404. */
export const DrAgentInvalid = define<{ id: unknown }>(
  'DrAgentInvalid',
  'NotFound',
  'BgpDrAgent %(id)s is invalid or has been disabled.',
);
export const DrAgentNotHostingBgpSpeaker = define<{ bgp_speaker_id: unknown; agent_id: unknown }>(
  'DrAgentNotHostingBgpSpeaker',
  'NotFound',
  'BGP speaker %(bgp_speaker_id)s is not hosted by the BgpDrAgent %(agent_id)s.',
);
export const DrAgentAssociationError = define<{ agent_id: unknown }>(
  'DrAgentAssociationError',
  'Conflict',
  'BgpDrAgent %(agent_id)s is already associated to a BGP speaker.',
);
