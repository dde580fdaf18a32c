// Package topology is the third stage: it resolves which listeners every
// route attaches to (parentRefs, allowedRoutes, hostnames, ListenerSets),
// resolves backendRefs (Services, registered backend kinds, ReferenceGrants)
// and records, for every parentRef, the Gateway API condition a controller
// would write — never dropping a route silently.
//
// It is the stage after model: it imports model, diag and secret (the
// helper that checks a CA bundle without printing it), never policy or a
// later stage. What a controller judges its own way (its listeners, its
// route delegation, the rules it cannot translate) it is given as
// functions in Options (Controller, DelegationRules, RuleCheck), which
// internal/policy builds from the families.
package topology
