/**
 * The API server's deployment: deploy/kustomize rendered by the real `kubectl kustomize`, every
 * object checked (kinds and names, the image the Containerfile builds, probes on octonet's real
 * health paths, the rendered config loaded by octonet's own config loader, the db-sync job's
 * command run for real, the Keystone jobs' scripts and endpoints), and the Helm chart's static
 * parts compared with the same objects, with each `manifests.*` toggle followed to the objects it
 * switches off (Debian has no helm and no binary is downloaded: see chart-skeleton.ts).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { HEALTHCHECK_PATH, READINESS_PATH } from '../../src/api/health-routes.js';
import { loadConfig } from '../../src/config/config.js';
import type { Json } from '../fixtures/json.js';
import { chartObjects, chartSkeletons, coveredBy } from './chart-skeleton.js';
import { kustomize } from './render.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const DEPLOY = join(ROOT, 'deploy');
const CHART = join(DEPLOY, 'helm', 'octonet');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
/** The image the Containerfile says it builds (its `# image:` line). */
const IMAGE = /^# image: (\S+)$/m.exec(readFileSync(join(ROOT, 'Containerfile'), 'utf8'))?.[1];

/** The manifests toggles the issue names (plus configmap_bin for the Keystone jobs' scripts). */
const TOGGLES = [
  'configmap_bin',
  'configmap_etc',
  'crds',
  'daemonset_node_agent',
  'deployment_operator',
  'deployment_server',
  'ingress_server',
  'job_db_sync',
  'job_ks_endpoints',
  'job_ks_service',
  'job_ks_user',
  'pdb_server',
  'secret_db',
  'secret_keystone',
  'service_server',
];

/**
 * A real `helm` on PATH, if any. Debian (this project's machines and CI) has no helm package and no
 * binary is downloaded here, so the test that uses it is skipped, saying so; where an operator has
 * Helm, it renders the chart for real and checks what chartObjects says without it.
 */
const HELM_COMMAND = 'helm';
const HELM = spawnSync(HELM_COMMAND, ['version', '--short'], { encoding: 'utf8' }).status === 0;

const key = (o: Json) => `${o.kind}/${o.metadata.name}`;

describe('deploy/kustomize and the chart', () => {
  let overlay: Json[];
  let base: Json[];
  /** ConfigMap name without kustomize's hash suffix → with it. */
  const generated = new Map<string, string>();
  const find = (kind: string, name: string) => {
    const object = overlay.find((o) => o.kind === kind && o.metadata.name === (generated.get(name) ?? name));
    assert.ok(object, `${kind} ${name} is rendered`);
    return object;
  };
  let dir: string;

  before(() => {
    overlay = kustomize(join(DEPLOY, 'kustomize'));
    base = kustomize(DEPLOY);
    for (const o of overlay) {
      const unhashed = /^(.*)-[a-z0-9]{10}$/.exec(o.metadata.name)?.[1];
      if (o.kind === 'ConfigMap' && unhashed) generated.set(unhashed, o.metadata.name);
    }
    dir = mkdtempSync(join(tmpdir(), 'octonet-deploy-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('renders exactly the API server objects, in the openstack namespace', () => {
    assert.deepEqual(overlay.map(key).sort(), [
      `ConfigMap/${generated.get('octonet-bin')}`,
      `ConfigMap/${generated.get('octonet-etc')}`,
      'Deployment/octonet-server',
      'Ingress/octonet',
      'Job/octonet-db-sync',
      'Job/octonet-ks-endpoints',
      'Job/octonet-ks-service',
      'Job/octonet-ks-user',
      'PodDisruptionBudget/octonet-server',
      'Secret/octonet-db-user',
      'Secret/octonet-keystone-admin',
      'Secret/octonet-keystone-user',
      'Service/octonet-server',
    ]);
    for (const o of overlay) assert.equal(o.metadata.namespace, 'openstack', key(o));
  });

  it('every octonet container, here and in deploy/, runs the image the Containerfile builds', () => {
    assert.equal(IMAGE, `ghcr.io/octonet/octonet:${VERSION}`);
    const images = [...overlay, ...base].flatMap((o) =>
      (o.spec?.template?.spec?.containers ?? []).map((c: Json) => ({ object: key(o), image: c.image as string })),
    );
    const octonet = images.filter((i) => i.image.includes('octonet'));
    assert.ok(octonet.length >= 4, 'server, db-sync, operator, node agent');
    for (const { object, image } of octonet) assert.equal(image, IMAGE, object);
  });

  it("probes hit octonet's real health paths on the port the config listens on", () => {
    const server = find('Deployment', 'octonet-server');
    const [container] = server.spec.template.spec.containers;
    const port = container.ports.find((p: Json) => p.name === 'q-api').containerPort;
    assert.equal(container.livenessProbe.httpGet.path, HEALTHCHECK_PATH);
    assert.equal(container.readinessProbe.httpGet.path, READINESS_PATH);
    assert.equal(container.livenessProbe.httpGet.port, port);
    assert.equal(container.readinessProbe.httpGet.port, port);
    const config = parseYaml(find('ConfigMap', 'octonet-etc').data['octonet.yaml']);
    assert.equal(config.listen, `0.0.0.0:${port}`);
    assert.ok(container.resources.requests.cpu && container.resources.limits.memory);
  });

  it("the rendered config loads through octonet's config loader and matches the pod's mounts and Secrets", () => {
    const server = find('Deployment', 'octonet-server');
    const pod = server.spec.template.spec;
    const [container] = pod.containers;
    const file = join(dir, 'octonet.yaml');
    writeFileSync(file, find('ConfigMap', 'octonet-etc').data['octonet.yaml']);
    const dbSecret = find('Secret', 'octonet-db-user');
    const databaseEnv = container.env.find((e: Json) => e.name === 'OCTONET_DATABASE').valueFrom.secretKeyRef;
    assert.equal(databaseEnv.name, dbSecret.metadata.name);
    const databaseUrl = dbSecret.stringData[databaseEnv.key];
    const config = loadConfig({ file, env: { OCTONET_DATABASE: databaseUrl } });
    assert.equal(config.database, databaseUrl);
    assert.match(config.database!, /^postgres(ql)?:\/\//);
    assert.equal(config.auth, 'keystone');
    // The command reads the file the ConfigMap is mounted as.
    assert.deepEqual(container.command, ['octonet', 'serve', '--config', '/etc/octonet/octonet.yaml']);
    const mount = (name: string) => container.volumeMounts.find((m: Json) => m.name === name);
    const volume = (name: string) => pod.volumes.find((v: Json) => v.name === name);
    assert.equal(mount('octonet-etc').mountPath, '/etc/octonet/octonet.yaml');
    assert.equal(volume('octonet-etc').configMap.name, generated.get('octonet-etc'));
    // The Keystone password file is the user Secret's OS_PASSWORD, mounted where the config says.
    const user = find('Secret', 'octonet-keystone-user');
    const keystone = volume('keystone-user').secret;
    assert.equal(keystone.secretName, user.metadata.name);
    assert.equal(config.keystone.password_file, `${mount('keystone-user').mountPath}/${keystone.items[0].path}`);
    assert.equal(keystone.items[0].key, 'OS_PASSWORD');
    assert.equal(config.keystone.url, user.stringData.OS_AUTH_URL);
    assert.equal(config.keystone.user, user.stringData.OS_USERNAME);
    assert.equal(config.keystone.project, user.stringData.OS_PROJECT_NAME);
    // The state dir is the writable emptyDir (the root file system is read-only).
    assert.equal(container.securityContext.readOnlyRootFilesystem, true);
    assert.equal(config.state_dir, mount('state').mountPath);
    assert.ok(volume('state').emptyDir);
    assert.match(config.ovn.nb_connection!, /^tcp:ovn-ovsdb-nb\.openstack\.svc\.cluster\.local:6641$/);
    assert.match(config.ovn.sb_connection!, /^tcp:ovn-ovsdb-sb\.openstack\.svc\.cluster\.local:6642$/);
  });

  it("the db-sync job's command migrates a database with the rendered config", () => {
    const job = find('Job', 'octonet-db-sync');
    const [container] = job.spec.template.spec.containers;
    assert.deepEqual(container.command.slice(0, 2), ['octonet', 'db-sync']);
    assert.equal(container.env[0].valueFrom.secretKeyRef.name, 'octonet-db-user');
    const file = join(dir, 'octonet.yaml');
    writeFileSync(file, find('ConfigMap', 'octonet-etc').data['octonet.yaml']);
    const args = container.command.slice(1).map((a: string) => (a === '/etc/octonet/octonet.yaml' ? file : a));
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args], {
      encoding: 'utf8',
      env: { ...process.env, OCTONET_DATABASE: `sqlite:${join(dir, 'db-sync.db')}` },
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^database migrated; deployment identity [0-9a-f-]{36}\n$/);
  });

  it('the Keystone jobs run their scripts from octonet-bin and register the Service and Ingress addresses', () => {
    const bin = find('ConfigMap', 'octonet-bin');
    for (const name of ['ks-user', 'ks-service', 'ks-endpoints']) {
      const job = find('Job', `octonet-${name}`);
      const spec = job.spec.template.spec;
      assert.equal(spec.volumes[0].configMap.name, bin.metadata.name);
      for (const container of spec.containers) {
        const script = container.volumeMounts[0].subPath;
        assert.equal(container.command[0], `/tmp/${script}`);
        const check = spawnSync('bash', ['-n'], { input: bin.data[script], encoding: 'utf8' });
        assert.equal(check.status, 0, `${script}: ${check.stderr}`);
        assert.equal(container.envFrom[0].secretRef.name, 'octonet-keystone-admin');
      }
    }
    const service = find('Service', 'octonet-server');
    const ingress = find('Ingress', 'octonet');
    const endpoints = Object.fromEntries(
      find('Job', 'octonet-ks-endpoints').spec.template.spec.containers.map((c: Json) => {
        const env = Object.fromEntries(c.env.map((e: Json) => [e.name, e.value]));
        return [env.OS_SVC_ENDPOINT, env.OS_SERVICE_ENDPOINT];
      }),
    );
    const internal = `http://${service.metadata.name}.openstack.svc.cluster.local:${service.spec.ports[0].port}`;
    assert.deepEqual(endpoints, {
      admin: internal,
      internal,
      public: `http://${ingress.spec.rules.at(-1).host}:80`,
    });
    for (const rule of ingress.spec.rules) {
      assert.equal(rule.http.paths[0].backend.service.name, service.metadata.name);
      assert.equal(rule.http.paths[0].backend.service.port.name, service.spec.ports[0].name);
    }
    const roles = find('Job', 'octonet-ks-user').spec.template.spec.containers[0].env[0];
    assert.deepEqual(roles, { name: 'SERVICE_OS_ROLES', value: 'admin,service' });
  });

  it('the Service and the PodDisruptionBudget select the server pods; the budget leaves room to drain', () => {
    const server = find('Deployment', 'octonet-server');
    const labels = server.spec.template.metadata.labels;
    assert.deepEqual(server.spec.selector.matchLabels, labels);
    assert.deepEqual(find('Service', 'octonet-server').spec.selector, labels);
    const pdb = find('PodDisruptionBudget', 'octonet-server');
    assert.deepEqual(pdb.spec.selector.matchLabels, labels);
    assert.ok(pdb.spec.minAvailable < server.spec.replicas);
  });

  describe('the Helm chart (static parts; no helm binary here)', () => {
    const values = parseYaml(readFileSync(join(CHART, 'values.yaml'), 'utf8'), { version: '1.1' });
    const chart = parseYaml(readFileSync(join(CHART, 'Chart.yaml'), 'utf8'));

    it("is OpenStack-Helm shaped: network.backend [ovn], the issue's manifests toggles, each template behind one", () => {
      assert.equal(chart.version, VERSION);
      assert.equal(chart.appVersion, VERSION);
      assert.deepEqual(values.network.backend, ['ovn']);
      assert.deepEqual(Object.keys(values.manifests).sort(), TOGGLES);
      const used = new Set<string>();
      for (const file of readdirSync(join(CHART, 'templates')).filter((f) => f.endsWith('.yaml'))) {
        const text = readFileSync(join(CHART, 'templates', file), 'utf8');
        const toggles = [...text.matchAll(/\.Values\.manifests\.(\w+)/g)].map((m) => m[1]!);
        assert.ok(toggles.length > 0, `${file} is behind a manifests toggle`);
        for (const t of toggles) {
          assert.ok(TOGGLES.includes(t), `${file}: unknown toggle ${t}`);
          used.add(t);
        }
      }
      assert.deepEqual([...used].sort(), TOGGLES);
    });

    it('makes the same objects as deploy/kustomize plus deploy/ (the operator bundle)', () => {
      const skeletons = chartSkeletons(CHART).map((s) => `${s.doc.kind}/${s.doc.metadata.name}`);
      // Its operator, node agent, RBAC and CRD templates include deploy/'s files (files/ links
      // there); the credentials Secret it makes itself, from endpoints.*.
      const credentials = 'Secret/octonet-neutron-credentials';
      const fromDeploy = base.map(key).filter((k) => !k.startsWith('Namespace/') && k !== credentials);
      const unhashed = overlay.map(key).map((k) => k.replace(/-[a-z0-9]{10}$/, ''));
      assert.deepEqual(
        [...skeletons, ...fromDeploy].sort(),
        [...unhashed, ...base.filter((o) => o.kind !== 'Namespace').map(key)].sort(),
      );
      const links = ['operator.yaml', 'node-agent.yaml', 'rbac.yaml', 'crds', 'bin'];
      assert.deepEqual(readdirSync(join(CHART, 'files')).sort(), links.sort());
    });

    it('each manifests toggle switches off its own objects and no other; all off makes nothing', () => {
      // Without Helm: chartObjects follows the templates' `if .Values.manifests.*` (see chart-skeleton.ts).
      const on = Object.fromEntries(TOGGLES.map((t) => [t, true]));
      const objects = (off: string[]) =>
        chartObjects(CHART, { ...on, ...Object.fromEntries(off.map((t) => [t, false])) }).sort();
      const all = objects([]);
      // With every toggle on (values.yaml's defaults): each object once, the same set as the
      // kustomize variants (deploy/kustomize, and deploy/ less its Namespace).
      assert.deepEqual(
        Object.values(values.manifests),
        TOGGLES.map(() => true),
      );
      const unhashed = overlay.map(key).map((k) => k.replace(/-[a-z0-9]{10}$/, ''));
      assert.deepEqual(all, [...unhashed, ...base.filter((o) => o.kind !== 'Namespace').map(key)].sort());
      const crds = base.filter((o) => o.kind === 'CustomResourceDefinition').map(key);
      assert.equal(crds.length, 2);
      const switches: Record<string, string[]> = {
        configmap_bin: ['ConfigMap/octonet-bin'],
        configmap_etc: ['ConfigMap/octonet-etc'],
        crds,
        daemonset_node_agent: ['DaemonSet/octonet-node-agent'],
        deployment_operator: ['Deployment/octonet-operator'],
        deployment_server: ['Deployment/octonet-server'],
        ingress_server: ['Ingress/octonet'],
        job_db_sync: ['Job/octonet-db-sync'],
        job_ks_endpoints: ['Job/octonet-ks-endpoints'],
        job_ks_service: ['Job/octonet-ks-service'],
        job_ks_user: ['Job/octonet-ks-user'],
        pdb_server: ['PodDisruptionBudget/octonet-server'],
        secret_db: ['Secret/octonet-db-user'],
        secret_keystone: [
          'Secret/octonet-keystone-admin',
          'Secret/octonet-keystone-user',
          'Secret/octonet-neutron-credentials',
        ],
        service_server: ['Service/octonet-server'],
      };
      assert.deepEqual(Object.keys(switches).sort(), TOGGLES);
      for (const [toggle, gone] of Object.entries(switches)) {
        assert.deepEqual(
          objects([toggle]),
          all.filter((o) => !gone.includes(o)),
          `manifests.${toggle}: false`,
        );
      }
      // The RBAC and the operator's credentials go only when neither the operator nor the agent runs.
      const operatorBundle = base
        .filter((o) => !['Namespace', 'CustomResourceDefinition'].includes(o.kind as string))
        .map(key);
      assert.deepEqual(
        objects(['deployment_operator', 'daemonset_node_agent']),
        all.filter((o) => !operatorBundle.includes(o)),
      );
      assert.deepEqual(objects(TOGGLES), []);
    });

    it(
      'a real helm renders the objects chartObjects names, for the defaults and each toggle off',
      { skip: !HELM && 'no helm here: Debian has no helm package and no binary is downloaded' },
      () => {
        const template = (...set: string[]) => {
          const args = ['template', 'octonet', CHART, '--namespace', 'openstack', ...set.flatMap((s) => ['--set', s])];
          const out = execFileSync(HELM_COMMAND, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
          return parseAllDocuments(out, { version: '1.1' })
            .map((d) => d.toJS() as Json)
            .filter((o) => o !== null && typeof o === 'object')
            .map(key)
            .sort();
        };
        execFileSync(HELM_COMMAND, ['lint', CHART], { stdio: ['ignore', 'pipe', 'pipe'] });
        const on = Object.fromEntries(TOGGLES.map((t) => [t, true]));
        assert.deepEqual(template(), chartObjects(CHART, on).sort());
        for (const toggle of TOGGLES) {
          assert.deepEqual(
            template(`manifests.${toggle}=false`),
            chartObjects(CHART, { ...on, [toggle]: false }).sort(),
            toggle,
          );
        }
      },
    );

    it('says literally what the kustomize objects say, where it says anything literal', () => {
      const rendered = (kind: string, name: string): unknown => {
        const object =
          base.find((o) => o.kind === kind && o.metadata.name === name && kind === 'Secret') ?? find(kind, name);
        // The hash suffixes kustomize adds are the only names the chart spells otherwise.
        let text = JSON.stringify(object);
        for (const [plain, hashed] of generated) text = text.replaceAll(`"${hashed}"`, `"${plain}"`);
        return JSON.parse(text);
      };
      for (const { template, doc } of chartSkeletons(CHART)) {
        // Helm-only: hook annotations and the config hash that rolls the pods.
        delete doc.metadata.annotations;
        delete doc.spec?.template?.metadata?.annotations;
        assert.deepEqual(coveredBy(doc, rendered(doc.kind, doc.metadata.name)), [], template);
      }
    });

    it("takes from values.yaml what the kustomize objects hold, and its conf.octonet loads in octonet's loader", () => {
      const server = find('Deployment', 'octonet-server');
      const [container] = server.spec.template.spec.containers;
      assert.equal(values.images.tags.octonet_server, IMAGE);
      assert.equal(values.images.tags.octonet_operator, IMAGE);
      assert.equal(values.images.tags.octonet_node_agent, IMAGE);
      assert.equal(values.images.tags.octonet_db_sync, IMAGE);
      // deploy/'s files name the image literally; the chart swaps in images.tags.* by that literal.
      const helpers = readFileSync(join(CHART, 'templates', '_helpers.tpl'), 'utf8');
      assert.ok(helpers.includes(`replace "image: ${IMAGE}"`), '_helpers.tpl replaces the image deploy/ names');
      assert.equal(server.spec.replicas, values.pod.replicas.server);
      assert.equal(container.livenessProbe.httpGet.path, values.pod.probes.server.liveness.path);
      assert.equal(container.readinessProbe.httpGet.path, values.pod.probes.server.readiness.path);
      const { httpGet: _l, ...liveness } = container.livenessProbe;
      const { httpGet: _r, ...readiness } = container.readinessProbe;
      assert.deepEqual(liveness, values.pod.probes.server.liveness.params);
      assert.deepEqual(readiness, values.pod.probes.server.readiness.params);
      assert.deepEqual(container.resources, values.pod.resources.server);
      assert.equal(
        find('PodDisruptionBudget', 'octonet-server').spec.minAvailable,
        values.pod.lifecycle.disruption_budget.server.min_available,
      );
      assert.equal(container.ports[0].containerPort, values.endpoints.network.port.api.default);
      // conf.octonet, with what the chart fills in from endpoints.* (its nulls), is a valid config;
      // every key it sets is the same in the kustomize config.
      const conf = values.conf.octonet;
      const rendered = parseYaml(find('ConfigMap', 'octonet-etc').data['octonet.yaml']);
      const file = join(dir, 'values-conf.yaml');
      const filled = { ...conf, ovn: rendered.ovn, keystone: { ...rendered.keystone, ...conf.keystone } };
      writeFileSync(file, JSON.stringify(filled));
      loadConfig({ file, env: { OCTONET_DATABASE: 'postgresql://u:p@db:5432/octonet' } });
      assert.deepEqual(coveredBy(filled, rendered), []);
    });
  });
});
