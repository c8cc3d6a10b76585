package suggest

// Distance is the Levenshtein distance between a and b in code points.
func Distance(a, b string) int {
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

// MaxDistance is how far a hint may be from the name it corrects.
const MaxDistance = 2

// Closest returns the candidate nearest to name within MaxDistance, or ""
// when there is none; ties go to the first candidate in the given order.
func Closest(name string, candidates []string) string {
	best, bestDist := "", MaxDistance+1
	for _, c := range candidates {
		if d := Distance(name, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}
