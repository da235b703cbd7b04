// Command bimodalcsv writes gp.BimodalExample's data (60 points, one input,
// a hyperparameter posterior with two modes under the paper's prior) as a
// CSV file with a header row, the target last:
//
//	go run ./scripts/compare/bimodalcsv OUT.csv
package main

import (
	"fmt"
	"os"

	"github.com/subtemper/subtemper/gp"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: bimodalcsv OUT.csv")
		os.Exit(2)
	}
	if err := gp.WriteCSVFile(os.Args[1], gp.BimodalExample()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
