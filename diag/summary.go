package diag

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/subtemper/subtemper/internal/plural"
)

// Summary holds the summary statistics and convergence diagnostics of one
// variable, like a row of posterior's summarise_draws (with its default
// measures plus ess_mean, mcse_mean and the paper's R̂ and ESS). Location
// and scale are over all draws of all chains. Every field may be NaN, in
// the cases the package documentation lists; Rhat fields may be +Inf.
//
// In JSON, non-finite numbers (which JSON cannot represent) are written as
// null, and null reads back as NaN.
type Summary struct {
	Name      string  `json:"name"`
	Mean      float64 `json:"mean"`       // Mean of all draws
	Median    float64 `json:"median"`     // Median of all draws
	SD        float64 `json:"sd"`         // SD of all draws
	MAD       float64 `json:"mad"`        // MAD of all draws (scaled by 1.4826)
	Q5        float64 `json:"q5"`         // Quantile 0.05 of all draws
	Q95       float64 `json:"q95"`        // Quantile 0.95 of all draws
	Rhat      float64 `json:"rhat"`       // Rhat: max(RhatBulk, RhatTail)
	RhatBulk  float64 `json:"rhat_bulk"`  // RhatBulk
	RhatTail  float64 `json:"rhat_tail"`  // RhatTail
	ESSBulk   float64 `json:"ess_bulk"`   // ESSBulk
	ESSTail   float64 `json:"ess_tail"`   // ESSTail
	ESSMean   float64 `json:"ess_mean"`   // ESSMean
	MCSEMean  float64 `json:"mcse_mean"`  // MCSEMean
	RhatPaper float64 `json:"rhat_paper"` // RhatPaper (paper eq. 8)
	ESSPaper  float64 `json:"ess_paper"`  // ESSPaper (paper eq. 9)
}

// jsonFloat is a float64 that JSON-encodes non-finite values as null and
// decodes null as NaN.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(f))
}

func (f *jsonFloat) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = jsonFloat(math.NaN())
		return nil
	}
	return json.Unmarshal(b, (*float64)(f))
}

// summaryJSON is Summary's JSON form.
type summaryJSON struct {
	Name      string    `json:"name"`
	Mean      jsonFloat `json:"mean"`
	Median    jsonFloat `json:"median"`
	SD        jsonFloat `json:"sd"`
	MAD       jsonFloat `json:"mad"`
	Q5        jsonFloat `json:"q5"`
	Q95       jsonFloat `json:"q95"`
	Rhat      jsonFloat `json:"rhat"`
	RhatBulk  jsonFloat `json:"rhat_bulk"`
	RhatTail  jsonFloat `json:"rhat_tail"`
	ESSBulk   jsonFloat `json:"ess_bulk"`
	ESSTail   jsonFloat `json:"ess_tail"`
	ESSMean   jsonFloat `json:"ess_mean"`
	MCSEMean  jsonFloat `json:"mcse_mean"`
	RhatPaper jsonFloat `json:"rhat_paper"`
	ESSPaper  jsonFloat `json:"ess_paper"`
}

// MarshalJSON encodes s as an object with the snake_case keys of its field
// tags, writing NaN and ±Inf as null.
func (s Summary) MarshalJSON() ([]byte, error) {
	return json.Marshal(summaryJSON{
		s.Name, jsonFloat(s.Mean), jsonFloat(s.Median), jsonFloat(s.SD), jsonFloat(s.MAD),
		jsonFloat(s.Q5), jsonFloat(s.Q95), jsonFloat(s.Rhat), jsonFloat(s.RhatBulk),
		jsonFloat(s.RhatTail), jsonFloat(s.ESSBulk), jsonFloat(s.ESSTail), jsonFloat(s.ESSMean),
		jsonFloat(s.MCSEMean), jsonFloat(s.RhatPaper), jsonFloat(s.ESSPaper),
	})
}

// UnmarshalJSON decodes what MarshalJSON encodes; null (or a missing key)
// becomes NaN.
func (s *Summary) UnmarshalJSON(b []byte) error {
	nan := jsonFloat(math.NaN())
	j := summaryJSON{"", nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan}
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("diag: summary: %w", err)
	}
	*s = Summary{
		j.Name, float64(j.Mean), float64(j.Median), float64(j.SD), float64(j.MAD),
		float64(j.Q5), float64(j.Q95), float64(j.Rhat), float64(j.RhatBulk),
		float64(j.RhatTail), float64(j.ESSBulk), float64(j.ESSTail), float64(j.ESSMean),
		float64(j.MCSEMean), float64(j.RhatPaper), float64(j.ESSPaper),
	}
	return nil
}

// SummarizeChains summarizes the draws of one variable, indexed
// [chain][draw]. Each field equals the function it is named after; the
// work they share (sorting, ranking, splitting) is done once. It returns an
// error only for input that Validate rejects.
func SummarizeChains(name string, chains [][]float64) (Summary, error) {
	if err := validate(chains); err != nil {
		return Summary{}, fmt.Errorf("diag: variable %q: %w", name, err)
	}
	nan := math.NaN()
	pool := Pool(chains)
	s := Summary{Name: name, Mean: Mean(pool), SD: SD(pool)}
	s.Median, s.MAD, s.Q5, s.Q95 = nan, nan, nan, nan
	s.RhatBulk, s.RhatTail, s.ESSBulk, s.ESSTail = nan, nan, nan, nan
	if !hasNaN(chains) {
		sorted := slices.Clone(pool)
		slices.Sort(sorted)
		s.Median = medianSorted(sorted)
		s.MAD = madSorted(sorted)
		s.Q5 = quantileSorted(sorted, 0.05)
		s.Q95 = quantileSorted(sorted, 0.95)

		if z := zScale(SplitChains(chains)); !returnsNaN(z) {
			s.RhatBulk = rhatCore(z)
			s.ESSBulk = essCore(z)
		}
		s.RhatTail = tailRhat(chains, s.Median)
		if !returnsNaN(chains) {
			s.ESSTail = nanMin(essIndicator(chains, s.Q5), essIndicator(chains, s.Q95))
		}
	}
	s.Rhat = nanMax(s.RhatBulk, s.RhatTail)
	s.ESSMean = ESSMean(chains)
	s.MCSEMean = s.SD / math.Sqrt(s.ESSMean)
	s.RhatPaper = RhatPaper(chains)
	s.ESSPaper = ESSPaper(chains)
	return s, nil
}

// Summarize summarizes every variable of d (see SummarizeChains), in the
// order of d.Names, working on the variables in parallel. It returns an
// error if d has no variables, if d.Names and d.Values differ in length, or
// if the draws of a variable are not valid (see Validate).
func Summarize(d *Draws) ([]Summary, error) {
	if d == nil || len(d.Names) == 0 {
		return nil, fmt.Errorf("diag: summarize: no variables")
	}
	if len(d.Names) != len(d.Values) {
		return nil, fmt.Errorf("diag: summarize: %s for %s", plural.Count(len(d.Names), "name", "names"), plural.Count(len(d.Values), "variable", "variables"))
	}
	out := make([]Summary, len(d.Names))
	errs := make([]error, len(d.Names))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for v, name := range d.Names {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			out[v], errs[v] = SummarizeChains(name, d.Values[v])
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
