// Package explain answers "which policy owns this field here, and why":
// for a listener or a route rule it lists every policy field in effect with
// its owner, level, merge strategy, contributors, losers and what it
// shadows — read from the merge IR, never recomputed.
//
// explain is a view: it imports merge, policy and topology (the stages
// before it), never status, render, lint or pipeline.
package explain
