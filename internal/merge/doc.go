// Package merge is the pipeline's merge stage (after attach, before the
// views); it computes gwpol's intermediate representation: for every
// merge point (a Gateway as a whole, a listener, a route rule) and every
// policy kind, the ordered candidate policies and, per field, the owner,
// the contributors, the policies that lost and the strategy that decided.
// It also derives the effective view of a rule (own fields plus those
// inherited from listener and Gateway, with what shadows what), and, for
// kinds whose more specific policy replaces the others whole or merges
// into them (policy.WholeOverrider), the policy in effect
// per rule and listener (Routed), which that view, render and lint use.
// A candidate its controller rejected at a target (attach.Result.Rejected:
// Conflicted, Overridden) takes no part there (Point.Rejected); Verdicts
// and NotApplied hand the views that verdict with its reason.
//
// status, render, explain and lint only read this IR; none of them
// recomputes precedence. merge imports attach, topology, policy, model and
// parallel, never status or a view.
package merge
