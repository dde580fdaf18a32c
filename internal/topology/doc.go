// Package topology is the third stage: it resolves which listeners every
// route attaches to (parentRefs, allowedRoutes, hostnames, ListenerSets),
// resolves backendRefs (Services, registered backend kinds, ReferenceGrants)
// and records, for every parentRef, the Gateway API condition a controller
// would write — never dropping a route silently.
//
// It imports model and diag only.
package topology
