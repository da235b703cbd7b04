package subtemper_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/subtemper/subtemper"
	"github.com/subtemper/subtemper/gp"
	"github.com/subtemper/subtemper/tempering"
)

// Example fits a GP to 60 synthetic observations, predicts 20 held-out
// ones from the hyperparameter posterior, and scores the predictions.
func Example() {
	all, _, err := gp.Synthetic(80, 1, 3, gp.Prior{}) // or gp.ReadCSVFile("train.csv", gp.CSVOptions{})
	if err != nil {
		panic(err)
	}
	train, _ := all.Prefix(60)
	fit, err := subtemper.FitGP(context.Background(), train, subtemper.GPOptions{
		Backend: "gonum", Standardize: true,
		// SPT with adapted HMC, a short run (DefaultGPSettings is the
		// default, longer one).
		Settings: &tempering.Settings{
			Sampler: tempering.Sampler{Driver: tempering.SPT, Kernel: tempering.HMC{Steps: 10, Jitter: 0.2}, Swap: tempering.DEO},
			Control: tempering.Control{Warmup: 200, Draws: 200, Seed: 1},
		},
	})
	if err != nil {
		panic(err)
	}
	defer fit.Close()
	sum, err := fit.Summary()
	if err != nil {
		panic(err)
	}
	for _, s := range sum {
		fmt.Printf("%s: R-hat < 1.1: %v\n", s.Name, s.Rhat < 1.1)
	}
	test := all.X[60:]
	pred, err := fit.Predict(context.Background(), test, 20, subtemper.PredictOptions{Y: all.Y[60:]})
	if err != nil {
		panic(err)
	}
	m, _ := pred.Metrics(all.Y[60:])
	fmt.Printf("%d test points, %d draws; 90%% interval coverage ≥ 0.8: %v\n", pred.N, pred.Draws, m.Coverage90 >= 0.8)
	// Output:
	// ell_x1: R-hat < 1.1: true
	// sf: R-hat < 1.1: true
	// sn: R-hat < 1.1: true
	// 20 test points, 600 draws; 90% interval coverage ≥ 0.8: true
}

// ExampleFitGP_map finds the posterior mode of a GP's hyperparameters
// (the point estimate scikit-learn's ML-II gives, with the prior), with
// the Laplace approximation's standard deviations, and predicts from it.
func ExampleFitGP_map() {
	data, theta, err := gp.Synthetic(300, 2, 5, gp.Prior{})
	if err != nil {
		panic(err)
	}
	fit, err := subtemper.FitGP(context.Background(), data, subtemper.GPOptions{Backend: "gonum", MAP: true})
	if err != nil {
		panic(err)
	}
	defer fit.Close()
	sd := fit.Mode.SD()
	for i, name := range fit.Names() {
		// Within 3 Laplace sd (of u = log θ) of the θ the data were drawn from.
		z := (fit.Mode.Mode[i] - math.Log(theta[i])) / sd[i]
		fmt.Printf("%s: near the truth: %v\n", name, math.Abs(z) < 3)
	}
	pred, err := fit.Predict(context.Background(), data.X[:2*5], 5, subtemper.PredictOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d predictions from %d draw (the mode)\n", pred.N, pred.Draws)
	// Output:
	// ell_x1: near the truth: true
	// ell_x2: near the truth: true
	// sf: near the truth: true
	// sn: near the truth: true
	// 5 predictions from 1 draw (the mode)
}

// ExampleGPFit_Verdict fits a GP with the default settings (those of the
// CLI) and checks the convergence verdict before using the draws.
func ExampleGPFit_Verdict() {
	data, _, err := gp.Synthetic(40, 1, 7, gp.Prior{})
	if err != nil {
		panic(err)
	}
	fit, err := subtemper.FitGP(context.Background(), data, subtemper.GPOptions{Backend: "gonum", Standardize: true})
	if err != nil {
		panic(err)
	}
	defer fit.Close()
	v, err := fit.Verdict()
	if err != nil {
		panic(err)
	}
	fmt.Println(v.Converged, v.ESSNeeded)
	fmt.Println(v)
	// Output:
	// true 300
	// converged (every R-hat < 1.01, bulk- and tail-ESS ≥ 300 = 100 per chain)
}

// ExampleGPFit_Save saves a fit and reads it back.
func ExampleGPFit_Save() {
	data, _, err := gp.Synthetic(30, 1, 3, gp.Prior{})
	if err != nil {
		panic(err)
	}
	st := subtemper.DefaultGPSettings()
	st.Warmup, st.Draws, st.Stop = 100, 50, nil // short: only the files matter here
	fit, err := subtemper.FitGP(context.Background(), data, subtemper.GPOptions{Backend: "gonum", Settings: &st})
	if err != nil {
		panic(err)
	}
	defer fit.Close()
	dir, err := os.MkdirTemp("", "fit")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	if err := fit.Save(dir); err != nil {
		panic(err)
	}
	back, err := subtemper.LoadGPFit(dir, "gonum")
	if err != nil {
		panic(err)
	}
	defer back.Close()
	fmt.Println(len(back.Draws), len(back.Draws[0]), back.Names())
	// Output:
	// 3 50 [ell_x1 sf sn]
}

// ExampleGPFit_Report fits a GP and writes what the CLI's gp command
// writes: the run's report (summary.json) and the draws (draws.csv).
func ExampleGPFit_Report() {
	data, _, err := gp.Synthetic(30, 1, 3, gp.Prior{})
	if err != nil {
		panic(err)
	}
	st := subtemper.DefaultGPSettings()
	st.Warmup, st.Draws, st.Stop = 100, 50, nil // short: only the outputs matter here
	fit, err := subtemper.FitGP(context.Background(), data, subtemper.GPOptions{Backend: "gonum", Settings: &st})
	if err != nil {
		panic(err) // a cancelled ctx would also return the fit of the draws so far
	}
	defer fit.Close()
	rep, err := fit.Report(subtemper.ReportOptions{})
	if err != nil {
		panic(err)
	}
	b, err := json.MarshalIndent(rep, "", "  ") // summary.json
	if err != nil {
		panic(err)
	}
	var csv strings.Builder
	if err := fit.WriteDrawsCSV(&csv); err != nil { // draws.csv (an *os.File in practice)
		panic(err)
	}
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	fmt.Println(rep.Command, rep.Sampler, rep.Inner, rep.Hot, rep.Draws.PerChain, len(rep.Variables), json.Valid(b))
	fmt.Println(lines[0], len(lines)-1)
	// Output:
	// gp pt hmc mh [50 50 50] 3 true
	// .chain,.iteration,.draw,ell_x1,sf,sn 150
}

// ExampleFitGP_importance samples a GP's hyperparameters by importance
// sampling from the warm start's fitted proposal (the default from
// WarmStartMinN observations), judges the weighted sample and predicts
// from draws resampled from it.
func ExampleFitGP_importance() {
	data, _, err := gp.Synthetic(200, 2, 3, gp.Prior{})
	if err != nil {
		panic(err)
	}
	fit, err := subtemper.FitGP(context.Background(), data, subtemper.GPOptions{
		Backend: "gonum", Standardize: true, Importance: subtemper.ImportanceOn,
	})
	if err != nil {
		panic(err)
	}
	defer fit.Close()
	v, err := fit.Verdict() // Pareto k̂ ≤ 0.7, every bulk- and tail-ESS ≥ 400
	if err != nil {
		panic(err)
	}
	fmt.Println("weighted:", fit.Weighted != nil, "converged:", v.Converged)
	pred, err := fit.Predict(context.Background(), data.X[:2*5], 5, subtemper.PredictOptions{Draws: 100})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d points from %d resampled draws\n", pred.N, pred.Draws)
	// Output:
	// weighted: true converged: true
	// 5 points from 100 resampled draws
}
