package diag_test

import (
	"fmt"
	"strings"

	"github.com/subtemper/subtemper/diag"
)

// The paper's R̂ and ESS of two chains of three draws (see TestPaperHand
// for the arithmetic), and the diagnostics of draws read from long CSV
// (posterior 1.4's summarise_draws gives the same mean 0.556, sd 0.798,
// rhat 1.34 and ess_bulk 8 for them, and rhat_basic(split = FALSE) 1.5626).
func Example() {
	chains := [][]float64{{1, 2, 3}, {3, 4, 5}}
	fmt.Printf("paper: R-hat %.4f, ESS %.4f\n", diag.RhatPaper(chains), diag.ESSPaper(chains))

	// Two chains of eight draws; the second is shifted upwards.
	csv := `chain,draw,mu
1,1,0.1
1,2,-0.4
1,3,0.3
1,4,0.9
1,5,-1.2
1,6,0.2
1,7,0.6
1,8,-0.3
2,1,1.1
2,2,0.8
2,3,1.9
2,4,0.7
2,5,1.4
2,6,0.2
2,7,1.6
2,8,1.0
`
	d, err := diag.ReadCSV(strings.NewReader(csv), "example.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	sum, err := diag.Summarize(d)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range sum {
		fmt.Printf("%s: mean %.3f, sd %.3f, rhat %.3f, ess_bulk %.1f, rhat_paper %.3f\n",
			s.Name, s.Mean, s.SD, s.Rhat, s.ESSBulk, s.RhatPaper)
	}

	// Bad input is reported with file, line and column.
	_, err = diag.ReadCSV(strings.NewReader("chain,draw,mu\n1,1,0.5\n1,2,oops\n"), "bad.csv")
	fmt.Println(err)
	// Output:
	// paper: R-hat 1.6330, ESS 2.6667
	// mu: mean 0.556, sd 0.798, rhat 1.343, ess_bulk 8.0, rhat_paper 1.563
	// diag: bad.csv:3:3: column "mu": "oops" is not a number
}
