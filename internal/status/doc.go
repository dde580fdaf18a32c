// Package status computes the status a controller would write: Gateway and
// listener conditions, route parent conditions, and per policy and
// ancestor the Accepted and Attached conditions, from the merge IR.
//
// status imports merge and the stages before it; it never recomputes
// precedence.
package status
