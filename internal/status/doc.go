// Package status is a view stage over the compiled IR (after merge): it
// computes the status a controller would write: Gateway and
// listener conditions, route parent conditions, and per policy and
// ancestor the Accepted and Attached conditions, from the merge IR.
//
// status imports merge, attach, topology, policy, model and diag — never
// a view; it never recomputes precedence.
package status
