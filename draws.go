package subtemper

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/subtemper/subtemper/diag"

	"github.com/subtemper/subtemper/internal/fileio"
	"github.com/subtemper/subtemper/internal/netcdf"
)

// DrawsCSVHeader are the label columns of WriteDrawsCSV: the
// meta-columns of R posterior's draws_df, so that
// posterior::as_draws_df(read.csv(...)) sees the chains (with plain chain
// and draw columns it takes them for variables and sees one chain).
const DrawsCSVHeader = ".chain,.iteration,.draw"

// WriteDrawsCSV writes draws[c][s][v] in long form: .chain, .iteration
// (the draw within its chain) and .draw (counting across chains), all
// from 1, then one column per variable, named by names (quoted where CSV
// needs it), numbers in the shortest form that reads back exactly. Every
// draw of every chain is written, also when chains differ in length (an
// interrupted run).
func WriteDrawsCSV(w io.Writer, names []string, draws [][][]float64) error {
	return writeDrawsCSV(w, names, draws, nil)
}

// LogWeightColumn is the column of a weighted sample's log weights in
// WriteWeightedDrawsCSV's files: the name R's posterior gives them
// (posterior::weight_draws), which ReadDrawsCSV reads back as weights
// (Draws.LogWeights).
const LogWeightColumn = diag.LogWeightColumn

// WriteWeightedDrawsCSV writes a weighted sample, draws[s][v] with log
// weights logWeights[s] (up to a constant), as WriteDrawsCSV writes one
// chain, with the log weights in a last column, LogWeightColumn.
func WriteWeightedDrawsCSV(w io.Writer, names []string, draws [][]float64, logWeights []float64) error {
	if len(logWeights) != len(draws) {
		return fmt.Errorf("subtemper: %d draws and %d log weights", len(draws), len(logWeights))
	}
	return writeDrawsCSV(w, names, [][][]float64{draws}, [][]float64{logWeights})
}

// writeDrawsCSV is WriteDrawsCSV with, if lw is not nil, each draw's log
// weight lw[c][s] in a last column.
func writeDrawsCSV(w io.Writer, names []string, draws [][][]float64, lw [][]float64) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(DrawsCSVHeader)
	for _, n := range names {
		bw.WriteByte(',')
		bw.WriteString(fileio.CSVField(n))
	}
	if lw != nil {
		bw.WriteString("," + LogWeightColumn)
	}
	bw.WriteByte('\n')
	buf := make([]byte, 0, 32)
	total := 0
	for c, ch := range draws {
		for s, v := range ch {
			total++
			buf = strconv.AppendInt(buf[:0], int64(c+1), 10)
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, int64(s+1), 10)
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, int64(total), 10)
			bw.Write(buf)
			for _, x := range v {
				buf = append(buf[:0], ',')
				buf = strconv.AppendFloat(buf, x, 'g', -1, 64)
				bw.Write(buf)
			}
			if lw != nil {
				buf = append(buf[:0], ',')
				buf = strconv.AppendFloat(buf, lw[c][s], 'g', -1, 64)
				bw.Write(buf)
			}
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

// WriteDrawsNetCDF writes draws[c][s][v] as netCDF (classic format): the
// layout of an ArviZ posterior group, dimensions chain and draw, one
// variable per name, so that xarray.open_dataset reads a Dataset ArviZ
// takes as it is; the global attributes say inference_library subtemper
// and, when command is not "", command. Chains of unequal length (an
// interrupted run) are cut to the shortest, the draws a Report's
// diagnostics use.
func WriteDrawsNetCDF(w io.Writer, command string, names []string, draws [][][]float64) error {
	return writeDrawsNetCDF(w, command, names, draws, nil)
}

// writeDrawsNetCDF is WriteDrawsNetCDF with more global attributes.
func writeDrawsNetCDF(w io.Writer, command string, names []string, draws [][][]float64, more []netcdf.Attr) error {
	common := 0
	for c, ch := range draws {
		if c == 0 || len(ch) < common {
			common = len(ch)
		}
	}
	cut := make([][][]float64, len(draws))
	for c, ch := range draws {
		cut[c] = ch[:common]
	}
	attrs := []netcdf.Attr{{Name: "inference_library", Value: "subtemper"}}
	if command != "" {
		attrs = append(attrs, netcdf.Attr{Name: "command", Value: command})
	}
	attrs = append(attrs, more...)
	return netcdf.Write(w, netcdf.Draws{Names: names, Values: cut, Attrs: attrs})
}

// WriteDrawsCSV writes the fit's draws as WriteDrawsCSV does: every draw
// of every chain in natural units θ = exp(u), in the data's units, one
// column per hyperparameter (Names). An importance-sampled fit's are
// its weighted sample's (Weighted), written by WriteWeightedDrawsCSV
// with their log weights.
func (f *GPFit) WriteDrawsCSV(w io.Writer) error {
	if ws := f.Weighted; ws != nil {
		return WriteWeightedDrawsCSV(w, f.Names(), f.weightedTheta(), ws.LogWeights)
	}
	return WriteDrawsCSV(w, f.Names(), f.Theta())
}

// WriteDrawsNetCDF writes the fit's draws as WriteDrawsNetCDF does, in
// natural units θ = exp(u), in the data's units, with the command
// attribute "subtemper gp" (the CLI's draws.nc). An importance-sampled
// fit's are its Draws, resampled from the weighted sample (ArviZ has no
// weights), which an attribute says.
func (f *GPFit) WriteDrawsNetCDF(w io.Writer) error {
	var more []netcdf.Attr
	if f.Weighted != nil {
		more = append(more, netcdf.Attr{Name: "sampling", Value: "importance sampling, resampled to equal weights (draws.csv holds the weighted draws)"})
	}
	return writeDrawsNetCDF(w, "subtemper gp", f.Names(), f.Theta(), more)
}
