package tempering

import "time"

// WarmStep names the step of the warm start that a WarmProgress reports.
type WarmStep int

const (
	// WarmStage is the end of a stage of the search for the mode, on a
	// subset of the observations (all of them at the last stage).
	WarmStage WarmStep = iota
	// WarmLaplace is the end of the Laplace approximation at the mode
	// on all observations: the search is over.
	WarmLaplace
	// WarmRound is the end of a round of the proposal's fit
	// (WarmStartOptions.Proposal).
	WarmRound
)

// WarmProgress is the state of FindMode after one of its steps
// (WarmStartOptions.Progress), for a caller that shows a long warm start
// as it goes: on thousands of observations each of the proposal's rounds
// takes minutes.
type WarmProgress struct {
	Step WarmStep
	// Size is the number of observations of the stage that ended
	// (WarmStage) and N the number of all of them.
	Size, N int
	// Optima is the number of distinct optima the stage kept
	// (WarmStage), or of modes on all observations (WarmLaplace,
	// WarmStart.Modes).
	Optima int
	// Round is the proposal round that ended (WarmRound, from 1) of at
	// most Rounds; ESS is its importance ESS as a fraction of its draws,
	// and the rounds end once one reaches EnoughESS. At WarmLaplace,
	// Rounds is the most rounds to come (0: no proposal is fitted).
	Round, Rounds  int
	ESS, EnoughESS float64
	// Draws is the number of log densities of each proposal round.
	Draws int
	// StepTime is the step's wall-clock time and Elapsed the warm
	// start's so far.
	StepTime, Elapsed time.Duration
	// MaxLeft (WarmRound) bounds the proposal fit's time still to come:
	// the rounds left, each as long as this one; zero when this round
	// ends the fit. The split-t's few evaluations (ProposalOptions.Split)
	// come after it.
	MaxLeft time.Duration
}
