// Package attach is the stage that resolves where every policy attaches:
// targetRefs (with sectionName), targetSelectors and rule ExtensionRef
// filters become ordered attachments per Gateway, listener, route and rule,
// indexed by target once. Targets that do not exist are recorded, never
// dropped (TargetNotFound, GWP201/202/205).
//
// attach is the stage after policy: it imports topology, policy, model and
// diag, never merge or anything later.
package attach
