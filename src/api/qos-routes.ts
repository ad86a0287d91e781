/**
 * The QoS URLs besides the policies themselves (those are generic, `resource-routes.ts`): a
 * policy's rules (`/v2.0/qos/policies/{id}/<type>_rules[/{rule_id}]`), the `qos-rules-alias` URLs
 * (`/v2.0/qos/alias_<type>_rules/{rule_id}`, no list or create), and the rule types
 * (`/v2.0/qos/rule-types[/{type}]`). Bodies as Neutron's: `{"bandwidth_limit_rule": …}`, 201 on
 * create, 204 on delete.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { prepareRequestBody } from '../core/attributes.js';
import { RULE_TYPE_SPEC } from '../core/qos/attributes.js';
import { RULE_KINDS } from '../core/qos/rules.js';
import { parseFields, parseFilters, selectFields, type RawQuery } from './query.js';
import { jsonBody, route, type ApiDeps } from './http.js';

export function registerQosRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const rules = deps.services.qosRules;
  const fieldsOf = (request: FastifyRequest) => parseFields(request.query as RawQuery);
  const params = (request: FastifyRequest) => request.params as { id: string; rule_id: string };

  for (const kind of RULE_KINDS) {
    const { spec, aliasSpec } = kind;
    const one = (view: object, request: FastifyRequest) => selectFields([view], fieldsOf(request))[0];
    route(app, `/v2.0/qos/policies/:id/${spec.collection}`, {
      GET: async (request) => {
        const filters = parseFilters(spec, request.query as RawQuery);
        const views = await rules.list(request.ctx, kind, params(request).id, {
          filters,
          sorts: [],
          pageReverse: false,
        });
        return { [spec.collection]: selectFields(views, fieldsOf(request)) };
      },
      POST: async (request, reply) => {
        const { items } = prepareRequestBody(request.ctx, spec, jsonBody(request), true);
        const view = await rules.create(request.ctx, kind, params(request).id, items[0]!);
        return reply.code(201).send({ [spec.name]: view });
      },
    });
    route(app, `/v2.0/qos/policies/:id/${spec.collection}/:rule_id`, {
      GET: async (request) => {
        const { id, rule_id } = params(request);
        return { [spec.name]: one(await rules.show(request.ctx, kind, id, rule_id), request) };
      },
      PUT: async (request) => {
        const { id, rule_id } = params(request);
        const { items } = prepareRequestBody(request.ctx, spec, jsonBody(request), false);
        return { [spec.name]: await rules.update(request.ctx, kind, id, rule_id, items[0]!) };
      },
      DELETE: async (request, reply) => {
        const { id, rule_id } = params(request);
        await rules.delete(request.ctx, kind, id, rule_id);
        return reply.code(204).send();
      },
    });
    route(app, `/v2.0/${aliasSpec.path}/:rule_id`, {
      GET: async (request) => {
        const { rule_id } = params(request);
        const policyId = await rules.policyOfRule(kind, rule_id);
        return { [aliasSpec.name]: one(await rules.show(request.ctx, kind, policyId, rule_id, true), request) };
      },
      PUT: async (request) => {
        const { rule_id } = params(request);
        const { items } = prepareRequestBody(request.ctx, aliasSpec, jsonBody(request), false);
        const policyId = await rules.policyOfRule(kind, rule_id);
        return { [aliasSpec.name]: await rules.update(request.ctx, kind, policyId, rule_id, items[0]!, true) };
      },
      DELETE: async (request, reply) => {
        const { rule_id } = params(request);
        const policyId = await rules.policyOfRule(kind, rule_id);
        await rules.delete(request.ctx, kind, policyId, rule_id, true);
        return reply.code(204).send();
      },
    });
  }

  route(app, '/v2.0/qos/rule-types', {
    GET: async (request) => {
      const filters = parseFilters(RULE_TYPE_SPEC, request.query as RawQuery);
      const allRules = filters.all_rules?.at(-1) === true;
      return { rule_types: selectFields(rules.listRuleTypes(request.ctx, allRules), fieldsOf(request)) };
    },
  });
  route(app, '/v2.0/qos/rule-types/:rule_id', {
    GET: async (request) => {
      const view = rules.showRuleType(request.ctx, params(request).rule_id);
      return { rule_type: selectFields([view], fieldsOf(request))[0] };
    },
  });
}
