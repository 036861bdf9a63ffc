/**
 * The {@link RouteKit} the gateway hands one capability module's route plugins
 * (services/route-kit/types.ts): dispatch bound to the module's capability and to the
 * request's dispatch context, model routes admitted under the module's name, the state of
 * its models from the workers' heartbeats, and the settings its routes read.
 */
import type { Capability } from '../capabilities/index.ts';
import type { ModelRouteOptions, RouteKit } from '../route-kit/types.ts';
import { contextOf, type RouteDeps } from './deps.ts';

/** Builds the kit of `capability`'s route plugins from the gateway's services. */
export function capabilityKit(capability: Capability, deps: RouteDeps): RouteKit {
  return {
    capability,
    modelRoute: (admission, bodyLimit): ModelRouteOptions => ({ config: { auth: true, admission: { ...admission, capability } }, bodyLimit }),
    dispatch: (req, model, inputs) => deps.dispatcher.dispatch(capability, model, inputs, contextOf(req)),
    signal: (req) => req.dispatchContext?.end?.signal,
    models: {
      canServe: (model) => deps.liveWorkers.canServe(capability, model),
      languages: (model) => deps.liveWorkers.languages(capability, model),
    },
    imageThreads: deps.settings.imageThreads,
  };
}
