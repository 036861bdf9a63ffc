/**
 * Admission of a model request once its body is parsed and its schema checked (a
 * `preHandler` hook on routes with `config.admission`), cheapest check first:
 * 1. the route's rules that a JSON Schema cannot state (400/413);
 * 2. the rest of its billable units from the key's budget (429);
 * 3. a live worker has its model installed (503 `NO_WORKER` / `MODEL_NOT_INSTALLED`);
 * 4. room for its items in the capability's in-flight limit (503 `OVERLOADED`).
 * Only then does the handler decode images or produce request events. Together with
 * auth, the first budget unit and the body limit and budget in `onRequest`, every route
 * runs: auth, rate limit, body size, schema, model availability, load, then the work.
 * A capability already at its in-flight limit refuses in `onRequest` too, before the body
 * is read: under overload the parsing and validation of bodies that would be refused
 * anyway took CPU from the work admitted (in `npm run bench:overload`, batches of 256 at
 * 4× capacity: 37 answered a second where capacity is 52).
 */
import type { FastifyInstance } from 'fastify';
import type { CapabilityAdmission } from '../route-kit/types.ts';
import type { Capability } from '../capabilities/index.ts';
import type { Dispatcher } from './dispatcher.ts';
import type { InflightItems } from './load-shedding.ts';
import type { RateLimits } from './rate-limit.ts';
import { endOf } from './request-end.ts';

/** The capability of a route's admission: the kit fills it in from the module's name, a registry name. */
const capabilityOf = (a: CapabilityAdmission): Capability => a.capability as Capability;

/** Adds the hook of the module comment to `app`. */
export function registerAdmission(app: FastifyInstance, o: { limits: RateLimits; dispatcher: Dispatcher; inflight: InflightItems }): void {
  app.addHook('onRequest', async (req) => {
    const a = req.routeOptions.config?.admission;
    if (a) o.inflight.assertRoom(capabilityOf(a));
  });
  app.addHook('preHandler', async (req, reply) => {
    const a = req.routeOptions.config?.admission;
    if (!a) return;
    // the body has passed the route's schema here: the model is a validated value (outcome
    // events take it from here, never from a body that failed validation)
    req.admittedModel = a.model(req.body);
    const checked = a.check?.(req.body);
    req.admitted = checked;
    const items = a.items(req.body, checked);
    const units = a.units ? a.units(req.body) : items;
    await o.limits.chargeKey(reply, req.apiKey!.id, units - 1, 1);
    // a batch whose every item failed its rules is answered without a model
    if (items === 0) return;
    o.dispatcher.assertServed(capabilityOf(a), a.model(req.body));
    endOf(req, reply).onClose(o.inflight.acquire(capabilityOf(a), items));
  });
}
