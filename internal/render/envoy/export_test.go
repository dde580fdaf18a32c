package envoy

// SetShareUnrouted turns the sharing of unrouted backend clusters
// between Gateways on or off (see builder.unrouted) and returns what
// puts it back.
func SetShareUnrouted(on bool) (restore func()) {
	was := shareUnrouted
	shareUnrouted = on
	return func() { shareUnrouted = was }
}

// SharedClusters is how many of g's clusters it shares with another
// Gateway of its render, and how many of those another built.
func SharedClusters(g *Gateway) (shared, taken int) {
	for _, c := range g.Clusters {
		if by, ok := g.sharedBy[c]; ok {
			shared++
			if by != g.index {
				taken++
			}
		}
	}
	return shared, taken
}

// SetSecondWriter sets what render tells of a route path a field of one
// API group's kind sets after another group's kind did (secondWriter),
// and returns what puts it back.
func SetSecondWriter(f func(path, first, second string)) (restore func()) {
	was := secondWriter
	secondWriter = f
	return func() { secondWriter = was }
}
