package subtemper

import (
	"bufio"
	"io"
	"strconv"

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
	bw := bufio.NewWriter(w)
	bw.WriteString(DrawsCSVHeader)
	for _, n := range names {
		bw.WriteByte(',')
		bw.WriteString(fileio.CSVField(n))
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
	return netcdf.Write(w, netcdf.Draws{Names: names, Values: cut, Attrs: attrs})
}

// WriteDrawsCSV writes the fit's draws as WriteDrawsCSV does: every draw
// of every chain in natural units θ = exp(u), in the data's units, one
// column per hyperparameter (Names).
func (f *GPFit) WriteDrawsCSV(w io.Writer) error {
	return WriteDrawsCSV(w, f.Names(), f.Theta())
}

// WriteDrawsNetCDF writes the fit's draws as WriteDrawsNetCDF does, in
// natural units θ = exp(u), in the data's units, with the command
// attribute "subtemper gp" (the CLI's draws.nc).
func (f *GPFit) WriteDrawsNetCDF(w io.Writer) error {
	return WriteDrawsNetCDF(w, "subtemper gp", f.Names(), f.Theta())
}
