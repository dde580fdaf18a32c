// Package attach is the stage that resolves where every policy attaches:
// targetRefs (with sectionName), targetSelectors and rule ExtensionRef
// filters become ordered attachments per Gateway, listener, route and rule,
// indexed by target once. Targets that do not exist are recorded, never
// dropped (TargetNotFound, GWP201/202/205).
//
// attach also keeps each controller's verdicts, decided once here: a
// route validator's verdict on each route (Verdicts), and, for kinds whose
// controller decides their status itself (policy.Family.AncestorStatuses: Envoy
// Gateway's), the ancestor statuses and the targets a policy reaches but
// is not applied on, with status's reason (Ancestors, Rejected). merge
// leaves rejected policies out of those targets; status, render, explain,
// lint and graph read the same verdict.
//
// attach is the stage after policy: it imports topology, policy, model and
// diag, never merge or anything later.
package attach
