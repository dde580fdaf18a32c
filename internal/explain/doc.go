// Package explain answers "which policy owns this field here, and why":
// for a listener or a route rule it lists every policy field in effect with
// its owner, level, merge strategy, contributors, losers and what it
// shadows — read from the merge IR, never recomputed.
//
// explain imports merge and the stages before it.
package explain
