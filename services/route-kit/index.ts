/**
 * The route kit: everything a capability module's routes use from outside their folder
 * (docs/extending.md). The gateway builds a {@link RouteKit} per module and registers the
 * module's route plugins with it as their options; limits, field rules, error schemas and
 * result helpers are plain imports from here.
 */
export type { Admission, CapabilityAdmission, CapabilityRoutes, ModelRouteOptions, RequestRecord, RouteKit } from './types.ts';
export { BODY_LIMITS, FIELD_LIMITS, JSON_BYTES_PER_CHAR, JSON_BYTES_PER_UTF8_BYTE, MAX_IMAGE_PIXELS, MAX_JSON_DEPTH } from './limits.ts';
export { ajvMessage, checkContextLength, checkStateNotBlank, codePointLength, estimateTokens, itemValidator, parseTemplate } from './validation.ts';
export { ACCOUNT_ERRORS, ACCOUNT_READ, AUTHED, ERRORS, ERROR_BODY, ERROR_BODY_ID, PUBLIC, PUBLIC_ERRORS, SECURITY, answerSchema, usageSchema } from './schemas.ts';
export { outputOf, outputsOf } from './results.ts';
