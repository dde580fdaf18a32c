package kgateway

// mirrorFraction is the share of requests, in millionths, kgateway
// mirrors for a RequestMirror fraction num/den
// (krtcollections/builtin.go: getFractionPercent): the ratio computed in
// float64, times a million, truncated. The float rounds some ratios
// just below their exact millionths (41/80 is 512499, not 512500), so
// the share is not num*10^6/den in integers.
func mirrorFraction(num, den int32) uint32 {
	ratio := float64(num) / float64(den)
	return uint32(ratio * 1000000)
}
