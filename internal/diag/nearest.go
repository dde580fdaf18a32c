package diag

// Nearest is the candidate closest to s by edit distance, when it is near
// enough to be a plausible typo of it ("" otherwise): the "did you mean"
// of every finding and usage error. Of candidates at one distance the
// one that sorts first wins, whatever their order: callers pass names
// read from maps (a schema's properties), and the suggestion must not
// change from run to run.
func Nearest(s string, candidates []string) string {
	best, bestD := "", len([]rune(s))/2+2
	for _, c := range candidates {
		if d := EditDistance(s, c); d < bestD || d == bestD && best != "" && c < best {
			best, bestD = c, d
		}
	}
	return best
}

// EditDistance is the Levenshtein distance between a and b, in runes.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
