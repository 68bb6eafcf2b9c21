package estimate

import "math"

// logShare is the unsatisfied branch of eq. 6 and eq. 14,
// log(alloc)/log(need) − 1 for alloc < need: −∞ at no slot at all (the
// thesis: "at least one slot must be allocated"), and, since alloc ≥ 1
// then implies need ≥ 2, never a division by log 1 = 0.
func logShare(alloc, need int) float64 {
	if alloc <= 0 {
		return math.Inf(-1)
	}
	return math.Log(float64(alloc))/math.Log(float64(need)) - 1
}

// UtilityReq is the map utility u^M of §4.2.3 eq. 6 of a job given alloc
// slots, with s_req = req and s_pend = pend:
//
//	log(alloc)/log(req) − 1              alloc < req
//	(alloc − req)/(pend − req)           alloc ≥ req
//
// capped at 1 (the thesis: a job never gets more slots than it has
// pending tasks). Edge cases, decided here where the thesis divides by
// zero: alloc = 0 < req is −∞; alloc ≥ pend is 1, so pend = req (0/0)
// and pend = 0 are 1; req > pend (the goal cannot be met) keeps the log
// branch up to alloc = pend, always below 0.
func UtilityReq(alloc, req, pend int) float64 {
	switch {
	case alloc < req:
		return logShare(alloc, req)
	case alloc >= pend:
		return 1
	}
	return math.Min(float64(alloc-req)/float64(pend-req), 1)
}

// UtilityFit is u^M of §5.3.4.3 eq. 14, with s_fit = fit, s_req = req and
// s_pend = pend:
//
//	log(alloc)/log(fit) − 1                      alloc < fit
//	(alloc − fit)/(2(req − fit))                 fit ≤ alloc ≤ req, fit < req
//	(alloc − req)/(2(pend − req)) + 1/2          fit < req < alloc
//	(alloc − fit)/(pend − fit)                   req ≤ fit ≤ alloc
//
// 0 at alloc = fit, ½ at alloc = req, 1 at alloc = pend, capped at 1.
// Edge cases as UtilityReq: alloc = 0 < fit is −∞; alloc ≥ pend is 1
// (pend = fit or pend = req would divide 0 by 0).
func UtilityFit(alloc, fit, req, pend int) float64 {
	switch {
	case alloc < fit:
		return logShare(alloc, fit)
	case alloc >= pend:
		return 1
	case fit < req && alloc <= req:
		return float64(alloc-fit) / (2 * float64(req-fit))
	case fit < req:
		return math.Min(float64(alloc-req)/(2*float64(pend-req))+0.5, 1)
	}
	return math.Min(float64(alloc-fit)/float64(pend-fit), 1)
}

// UtilityReduce is u^R of eq. 7 and eq. 15: log(ralloc)/log(rpend) − 1,
// in [−1, 0]. Edge cases: rpend ≤ 1 is 0 when ralloc ≥ rpend (every
// reduce placed) and −1 otherwise (log 1 = 0 would divide by zero);
// ralloc = 0 is −1, the range's floor, where the log would be −∞ — the
// thesis gives the range as [−1, 0].
func UtilityReduce(ralloc, rpend int) float64 {
	switch {
	case ralloc >= rpend:
		return 0
	case ralloc <= 0 || rpend <= 1:
		return -1
	}
	return math.Log(float64(ralloc))/math.Log(float64(rpend)) - 1
}

// Curve is a job's utility at every allocation 0…pend, eq. 14 when fit
// is known (fit ≥ 0), eq. 6 otherwise (fit < 0).
func Curve(fit, req, pend int) []float64 {
	u := make([]float64, pend+1)
	for a := range u {
		if fit >= 0 {
			u[a] = UtilityFit(a, fit, req, pend)
		} else {
			u[a] = UtilityReq(a, req, pend)
		}
	}
	return u
}
