// Command startwindow measures the start-up window in which a signal
// kills subtemper by its default action, before the program has asked
// for it: it starts the binary, sends SIGTERM (or SIGINT) a fixed delay
// later (a busy wait: sub-millisecond delays), and counts the runs that
// the signal killed (wait status "signaled": exit status 128 + the
// signal's number in a shell) against those that handled it (exit code
// 130), for each delay:
//
//	go build -o /tmp/subtemper ./cmd/subtemper
//	go run ./scripts/startwindow -bin /tmp/subtemper -tries 40
//
// The command run is `gp --n 100 --dims 1 --draws 100 --warmup 50
// --quiet`, which lasts far longer than the delays.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	bin := flag.String("bin", "subtemper", "the binary to start")
	tries := flag.Int("tries", 20, "runs per delay")
	delays := flag.String("delays", "0,0.25,0.5,0.75,1,1.5,2,3,4,6,8,12", "delays in milliseconds, comma-separated")
	sigName := flag.String("signal", "TERM", "TERM or INT")
	flag.Parse()
	sig := syscall.SIGTERM
	if *sigName == "INT" {
		sig = syscall.SIGINT
	}
	fmt.Printf("# %s, SIG%s, %d runs per delay; killed: ended by the signal's default action; handled: exit code 130\n", *bin, *sigName, *tries)
	fmt.Printf("%8s %7s %7s %7s\n", "delay_ms", "killed", "handled", "other")
	for _, f := range strings.Split(*delays, ",") {
		ms, err := strconv.ParseFloat(f, 64)
		if err != nil {
			fmt.Fprintln(os.Stderr, "startwindow: -delays:", err)
			os.Exit(2)
		}
		var killed, handled, other int
		for range *tries {
			switch run(*bin, time.Duration(ms*float64(time.Millisecond)), sig) {
			case "killed":
				killed++
			case "handled":
				handled++
			default:
				other++
			}
		}
		fmt.Printf("%8.2f %7d %7d %7d\n", ms, killed, handled, other)
	}
}

// run starts bin, sends sig after d and says how the run ended.
func run(bin string, d time.Duration, sig syscall.Signal) string {
	cmd := exec.Command(bin, "gp", "--n", "100", "--dims", "1", "--draws", "100", "--warmup", "50", "--quiet")
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "startwindow:", err)
		os.Exit(1)
	}
	for t := time.Now(); time.Since(t) < d; {
	}
	cmd.Process.Signal(sig)
	err := cmd.Wait()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signaled():
		return "killed"
	case errors.As(err, &ee) && ee.ExitCode() == 130:
		return "handled"
	}
	return "other"
}
