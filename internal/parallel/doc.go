// Package parallel runs independent pieces of one stage's work on every
// core. It sits below the pipeline and imports nothing of gwpol's.
package parallel
