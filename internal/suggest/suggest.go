package suggest

import "unicode/utf8"

// Distance is the edit distance between a and b in code points: the fewest
// insertions, deletions, substitutions and swaps of two neighbouring
// characters that turn a into b (the optimal string alignment distance), so
// that the common typo "nmae" is one edit from "name".
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
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
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
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

// Near is Closest with the rule of the hints for names a user chose (inputs,
// placeholders, providers, templates): a name shorter than three characters
// gets no hint, a name of up to four characters accepts one edit and a
// longer one MaxDistance; candidates shorter than three characters and the
// name itself are never suggested. Ties go to the earlier candidate.
func Near(name string, candidates []string) string {
	n := utf8.RuneCountInString(name)
	if n < 3 {
		return ""
	}
	maxDist := 1
	if n > 4 {
		maxDist = MaxDistance
	}
	best, bestDist := "", maxDist+1
	for _, c := range candidates {
		if c == name || utf8.RuneCountInString(c) < 3 {
			continue
		}
		if d := Distance(name, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}
