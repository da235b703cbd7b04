package linalg

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"slices"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"
)

func (c *cpuBackend) NewGP(x []float64, n, d int, y []float64) (GP, error) {
	return c.newGP(KernelSE, x, n, d, y)
}

// NewGPKernel implements KernelBackend: every family is built in.
func (c *cpuBackend) NewGPKernel(k Kernel, x []float64, n, d int, y []float64) (GP, error) {
	if !k.Valid() {
		return nil, fmt.Errorf("linalg/%s: gp: invalid kernel family %d", c.name, int(k))
	}
	return c.newGP(k, x, n, d, y)
}

func (c *cpuBackend) newGP(kern Kernel, x []float64, n, d int, y []float64) (GP, error) {
	if n < 1 || d < 1 {
		return nil, fmt.Errorf("linalg/%s: gp data of %d×%d", c.name, n, d)
	}
	if len(x) != n*d || len(y) != n {
		return nil, fmt.Errorf("linalg/%s: gp data: len(x) = %d, len(y) = %d for %d×%d", c.name, len(x), len(y), n, d)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("linalg/%s: gp data: x[%d,%d] = %v", c.name, i/d, i%d, v)
		}
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("linalg/%s: gp data: y[%d] = %v", c.name, i, v)
		}
	}
	// [Z 1] is stored with its row length padded to a multiple of 4 (the
	// padding stays 0), as RowKernels.GradRows wants.
	ld := (d + 4) &^ 3
	g := &cpuGP{
		be: c, kern: kern, n: n, d: d, ld: ld,
		x: make([]float64, n*d), y: append([]float64(nil), y...),
		a: make([]float64, n*n), p: make([]float64, n*n),
		z: make([]float64, n*ld), q: make([]float64, n*ld),
		ys: make([]float64, n), alpha: make([]float64, n), sq: make([]float64, n),
		ell:  make([]float64, d),
		facU: make([]float64, d+2), facSub: make([]int, n),
		xmean: make([]float64, d),
	}
	if kern != KernelSE {
		g.zt = make([]float64, d*n)
	}
	if c.rk != nil {
		parts := gradSplit(n)
		g.qparts = make([]float64, (parts-1)*n*ld)
		g.w = make([]float64, parts*n)
	}
	// The kernel depends on differences of inputs only: centre each column
	// so the Gram-matrix form of squared distances loses no precision to a
	// large common offset.
	for j := 0; j < d; j++ {
		var mean float64
		for i := 0; i < n; i++ {
			mean += x[i*d+j]
		}
		mean /= float64(n)
		g.xmean[j] = mean
		for i := 0; i < n; i++ {
			g.x[i*d+j] = x[i*d+j] - mean
		}
	}
	if w := min(runtime.GOMAXPROCS(0), maxRowWorkers) - 1; w > 0 && n >= parallelRows {
		g.pool = newRowPool(w)
		runtime.AddCleanup(g, func(p *rowPool) { p.close() }, g.pool)
	}
	return g, nil
}

type cpuGP struct {
	be       *cpuBackend
	kern     Kernel
	n, d, ld int
	x, y     []float64
	jitter   float64

	// a: kernel → factor → inverse. p: the length-scale weights G, with
	// ∂K_ij/∂log ℓ_d = G_ij·(z_id − z_jd)² (SE: G = Kf, the noise-free
	// kernel, diagonal σf²; Matérn: maternCov's w, diagonal 0) → P = W∘G.
	a, p      []float64
	z, q      []float64 // n×ld: [Z 1 0…], Z the scaled inputs; P·[Z 1 0…]
	zt        []float64 // Matérn only: Zᵀ of the subset, d×m
	qparts, w []float64 // RowKernels only: q of the gradient parts 1.., scratch
	ys, alpha []float64
	sq, ell   []float64
	sf2, sn2  float64
	quad      float64 // yᵀα of the last value
	m         int     // size of the subset in the buffers
	keep      bool    // kernelRows also fills p (Kf, or a Matérn family's G)
	pool      *rowPool

	// fac: g.a holds the Cholesky factor (and g.p G) of the last
	// evaluation, made without gradient at facU on the observations
	// facSub[:m], for LogLikResume.
	fac    bool
	facU   []float64
	facSub []int

	xmean           []float64 // the column means subtracted from x
	pk, pz, pzo, pq []float64 // Predict's workspaces, allocated on first use
}

func (g *cpuGP) N() int                   { return g.n }
func (g *cpuGP) D() int                   { return g.d }
func (g *cpuGP) SetJitter(jitter float64) { g.jitter, g.fac = jitter, false }
func (g *cpuGP) Close() error {
	if g.pool != nil {
		g.pool.close()
	}
	*g = cpuGP{be: g.be, kern: g.kern}
	return nil
}

// params decodes u and checks that every derived quantity is finite.
func (g *cpuGP) params(u []float64) error {
	if len(u) != g.d+2 {
		return fmt.Errorf("linalg/%s: gp: %d hyperparameters, want %d", g.be.name, len(u), g.d+2)
	}
	for i, v := range u {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("linalg/%s: gp: log-hyperparameter %d is %v", g.be.name, i, v)
		}
	}
	for j := 0; j < g.d; j++ {
		g.ell[j] = math.Exp(u[j])
		if g.ell[j] == 0 || math.IsInf(g.ell[j], 0) {
			return fmt.Errorf("linalg/%s: gp: length scale %d = exp(%v) out of range", g.be.name, j, u[j])
		}
	}
	g.sf2 = math.Exp(2 * u[g.d])
	g.sn2 = math.Exp(2 * u[g.d+1])
	if math.IsInf(g.sf2, 0) || math.IsInf(g.sn2, 0) {
		return fmt.Errorf("linalg/%s: gp: signal or noise variance overflows", g.be.name)
	}
	return nil
}

// build fills g.a (lower) with K_SS + (σn²+jitter)I and, if keep, g.p
// (lower) with the length-scale weights G (for SE the noise-free kernel
// Kf).
func (g *cpuGP) build(subset []int, u []float64, keep bool) error {
	g.fac = false
	m, err := checkSubset(g.be.name, subset, g.n)
	if err != nil {
		return err
	}
	if err := g.params(u); err != nil {
		return err
	}
	g.m = m
	d, ld := g.d, g.ld
	for k := 0; k < m; k++ {
		idx := k
		if subset != nil {
			idx = subset[k]
		}
		var s float64
		row := g.z[k*ld : k*ld+d]
		xr := g.x[idx*d : idx*d+d]
		for j := range row {
			v := xr[j] / g.ell[j]
			row[j] = v
			s += v * v
		}
		if !(s <= math.MaxFloat64/4) {
			// The Gram form |z_i|² + |z_j|² − 2 z_i·z_j of the squared
			// distances would overflow into NaN kernel entries.
			return fmt.Errorf("linalg/%s: gp: observation %d's inputs divided by the length scales have squared norm %v, too large to form squared distances: the inputs are too large for the length scales (standardize them)", g.be.name, idx, s)
		}
		g.z[k*ld+d] = 1 // the column of ones gives P·1 from the same product
		if g.zt != nil {
			for j, v := range row {
				g.zt[j*m+k] = v
			}
		}
		g.sq[k] = s
		g.ys[k] = g.y[idx]
	}
	if g.kern == KernelSE {
		a := g.a[:m*m]
		g.be.bl.Dsyrk(blas.Lower, blas.NoTrans, m, d, 1, g.z[:m*ld], ld, 0, a, m)
	}
	// The Matérn families are not smooth in r² at r = 0 (Matérn 1/2 is
	// linear in r there), so their rows take the squared distances from
	// explicit differences of the scaled inputs, exact to rounding, and
	// not from the Gram form.
	g.keep = keep
	g.rows(taskKernel, m, 0)
	return nil
}

// kernelRows turns rows lo..hi−1 of the Gram matrix in g.a (lower) into
// kernel values, with σn² + jitter on the diagonal, and copies them to g.p
// when g.keep; for a Matérn family it fills the rows of g.a from the
// scaled inputs in g.zt instead, and those of g.p with the weights G.
func (g *cpuGP) kernelRows(lo, hi int) {
	m := g.m
	a := g.a[:m*m]
	sf2, diag := g.sf2, g.sf2+g.sn2+g.jitter
	if g.kern != KernelSE {
		var w []float64
		if g.keep {
			w = g.p[:m*m]
		}
		if rk := g.be.rk; rk != nil {
			rk.MaternRows(g.kern, a, w, g.zt[:g.d*m], m, g.d, lo, hi, sf2, diag)
		} else {
			maternRows(g.kern, a, w, g.zt[:g.d*m], m, g.d, lo, hi, sf2, diag)
		}
		return
	}
	if rk := g.be.rk; rk != nil {
		var kf []float64
		if g.keep {
			kf = g.p[:m*m]
		}
		rk.SERows(a, kf, g.sq[:m], m, lo, hi, sf2, diag)
		return
	}
	for i := lo; i < hi; i++ {
		row := a[i*m : i*m+i]
		sqi := g.sq[i]
		for j := range row {
			d2 := sqi + g.sq[j] - 2*row[j]
			if d2 < 0 {
				d2 = 0
			}
			row[j] = sf2 * math.Exp(-0.5*d2)
		}
		a[i*m+i] = diag
		if g.keep {
			copy(g.p[i*m:i*m+i], row)
			g.p[i*m+i] = sf2
		}
	}
}

// maternRows is RowKernels.MaternRows in Go.
func maternRows(fam Kernel, a, w, zt []float64, m, d, lo, hi int, sf2, diag float64) {
	for i := lo; i < hi; i++ {
		row := a[i*m : i*m+i]
		clear(row)
		for q := range d {
			col := zt[q*m : q*m+i]
			zq := zt[q*m+i]
			for j, v := range col {
				t := zq - v
				row[j] += t * t
			}
		}
		for j, s := range row {
			v, wv := maternCov(fam, math.Sqrt(s), sf2)
			row[j] = v
			if w != nil {
				w[i*m+j] = wv
			}
		}
		a[i*m+i] = diag
		if w != nil {
			w[i*m+i] = 0
		}
	}
}

// pRows sets P = (ααᵀ − K⁻¹) ∘ G on rows lo..hi−1 of the lower triangle,
// with K⁻¹ in g.a and G in g.p.
func (g *cpuGP) pRows(lo, hi int) {
	m := g.m
	alpha := g.alpha[:m]
	for i := lo; i < hi; i++ {
		ai := alpha[i]
		arow := g.a[i*m : i*m+i+1]
		prow := g.p[i*m : i*m+i+1]
		for j, kinv := range arow {
			prow[j] *= ai*alpha[j] - kinv
		}
	}
}

// gradSplit is the number of parts the RowKernels gradient pass over m
// rows is split into: it depends on m only, so results do not depend on the
// number of workers.
func gradSplit(m int) int {
	if m < parallelRows {
		return 1
	}
	return gradParts
}

// gradRows runs RowKernels.GradRows on rows lo..hi−1 into the q of part
// (part 0: g.q), which it first clears.
func (g *cpuGP) gradRows(part, lo, hi int) {
	m, ld := g.m, g.ld
	q := g.q[:m*ld]
	if part > 0 {
		q = g.qparts[(part-1)*g.n*ld:][:m*ld]
	}
	clear(q)
	g.be.rk.GradRows(g.a[:m*m], g.p[:m*m], g.alpha[:m], g.z[:m*ld], q, g.w[part*g.n:][:m], m, ld, lo, hi)
}

// rows runs an O(m²) row task over the lower triangle in parts of equal
// area: parts of them, or with parts = 0 one per worker. The parts go to
// the handle's workers when it has some and m is large enough, else they
// run in order here. The kernel and P tasks are elementwise, so their
// result does not depend on the split; the gradient task's does (each
// part sums into its own q), so its number of parts depends on m only.
func (g *cpuGP) rows(kind taskKind, m, parts int) {
	if g.pool == nil || m < parallelRows {
		parts = max(parts, 1)
		for k := range parts {
			g.runTask(kind, k, splitRows(m, parts, k), splitRows(m, parts, k+1))
		}
		return
	}
	if parts == 0 {
		parts = g.pool.workers + 1
	}
	g.pool.run(g, kind, m, parts)
}

func (g *cpuGP) runTask(kind taskKind, part, lo, hi int) {
	switch kind {
	case taskKernel:
		g.kernelRows(lo, hi)
	case taskP:
		g.pRows(lo, hi)
	case taskGrad:
		g.gradRows(part, lo, hi)
	}
}

func (g *cpuGP) Kernel(dst []float64, subset []int, u []float64) error {
	if err := g.build(subset, u, false); err != nil {
		return fmt.Errorf("gp kernel: %w", err)
	}
	m := g.m
	if len(dst) < m*m {
		return fmt.Errorf("linalg/%s: gp kernel: dst has %d values, need %d", g.be.name, len(dst), m*m)
	}
	copy(dst, g.a[:m*m])
	mirrorLower(m, dst)
	return nil
}

func (g *cpuGP) LogLik(subset []int, u, grad []float64) (float64, error) {
	return g.logLik(subset, u, grad, nil, nil)
}

// LogLikPrefixes implements model.PrefixLiker; ok is true unless err is
// non-nil.
func (g *cpuGP) LogLikPrefixes(subset []int, u, grad []float64, ks []int, pre []float64) (float64, bool, error) {
	if len(pre) != len(ks) {
		return math.Inf(-1), false, fmt.Errorf("linalg/%s: gp: %d prefix lengths but %d outputs", g.be.name, len(ks), len(pre))
	}
	ll, err := g.logLik(subset, u, grad, ks, pre)
	return ll, err == nil, err
}

func (g *cpuGP) logLik(subset []int, u, grad []float64, ks []int, pre []float64) (float64, error) {
	if grad != nil && len(grad) != g.d+2 {
		return 0, fmt.Errorf("linalg/%s: gp: gradient of length %d, want %d", g.be.name, len(grad), g.d+2)
	}
	// Kf (or G) is kept without gradient too, for LogLikResume: the copy is made
	// in the same pass and costs nothing measurable.
	if err := g.build(subset, u, true); err != nil {
		return 0, err
	}
	m := g.m
	for _, k := range ks {
		if k < 1 || k > m {
			return math.Inf(-1), fmt.Errorf("linalg/%s: gp: prefix of %d observations of a subset of %d", g.be.name, k, m)
		}
	}
	if err := cholesky(g.be.la, m, g.a[:m*m]); err != nil {
		return math.Inf(-1), fmt.Errorf("linalg/%s: gp: cholesky of %d×%d kernel: %w", g.be.name, m, m, err)
	}
	ll, err := g.value(ks, pre)
	if err != nil {
		return ll, err
	}
	if grad == nil {
		g.fac = true
		copy(g.facU, u)
		if subset == nil {
			for i := range g.facSub {
				g.facSub[i] = i
			}
		} else {
			copy(g.facSub, subset)
		}
		return ll, nil
	}
	if err := g.gradient(grad); err != nil {
		return math.Inf(-1), err
	}
	return ll, nil
}

// LogLikResume implements model.GradResumer.
func (g *cpuGP) LogLikResume(subset []int, u, grad []float64) (float64, bool, error) {
	if len(grad) != g.d+2 {
		return 0, false, fmt.Errorf("linalg/%s: gp: gradient of length %d, want %d", g.be.name, len(grad), g.d+2)
	}
	k := len(subset)
	if subset == nil {
		k = g.n
	}
	if !g.fac || k < 1 || k > g.m || !slices.Equal(u, g.facU) {
		return 0, false, nil
	}
	if subset == nil {
		for i, v := range g.facSub[:k] {
			if v != i {
				return 0, false, nil
			}
		}
	} else if !equalInts(subset, g.facSub[:k]) {
		return 0, false, nil
	}
	g.fac = false
	if m := g.m; k < m {
		// The leading k×k blocks of the factor and of Kf (or G), repacked with
		// row length k; row i moves to an earlier place than any later
		// row's source, so copying in order is safe.
		for i := 1; i < k; i++ {
			copy(g.a[i*k:i*k+i+1], g.a[i*m:i*m+i+1])
			copy(g.p[i*k:i*k+i+1], g.p[i*m:i*m+i+1])
		}
		g.m = k
	}
	ll, err := g.value(nil, nil)
	if err != nil {
		return ll, true, err
	}
	if err := g.gradient(grad); err != nil {
		return math.Inf(-1), true, err
	}
	return ll, true, nil
}

// value computes α = K⁻¹y and the log-likelihood from the Cholesky factor
// in g.a (and the log-likelihoods of the prefixes ks into pre).
func (g *cpuGP) value(ks []int, pre []float64) (float64, error) {
	m := g.m
	a := g.a[:m*m]
	alpha := g.alpha[:m]
	ys := g.ys[:m]
	copy(alpha, ys)
	// α = L⁻ᵀ(L⁻¹y), in two steps: the leading k entries of z = L⁻¹y and
	// the leading k×k block of L are those of the subset's first k
	// observations, so z gives their log-likelihoods too.
	g.be.bl.Dtrsv(blas.Lower, blas.NoTrans, blas.NonUnit, m, a, m, alpha, 1)
	for j, k := range ks {
		var zz, ld float64
		for i, z := range alpha[:k] {
			zz += z * z
			ld += math.Log(a[i*m+i])
		}
		pre[j] = -0.5*zz - ld - 0.5*float64(k)*math.Log(2*math.Pi)
	}
	g.be.bl.Dtrsv(blas.Lower, blas.Trans, blas.NonUnit, m, a, m, alpha, 1)
	var quad float64
	for i, v := range ys {
		quad += v * alpha[i]
	}
	g.quad = quad
	ll := -0.5*quad - 0.5*logDetChol(m, a) - 0.5*float64(m)*math.Log(2*math.Pi)
	if math.IsInf(quad, 0) || math.IsNaN(quad) {
		// The factor is fine; the targets are too large for the kernel's
		// scale (yᵀK⁻¹y overflows), which no jitter would cure.
		return math.Inf(-1), fmt.Errorf("linalg/%s: gp: yᵀK⁻¹y over %d observations is %v: the targets are too large for the kernel's scale (standardize them)", g.be.name, m, quad)
	}
	if math.IsNaN(ll) || math.IsInf(ll, 0) {
		return math.Inf(-1), fmt.Errorf("linalg/%s: gp: log-likelihood of %d×%d kernel is %v: %w", g.be.name, m, m, ll, ErrNotPositiveDefinite)
	}
	return ll, nil
}

// gradient fills grad from the Cholesky factor in g.a, G in g.p and α,
// overwriting the factor with K⁻¹.
func (g *cpuGP) gradient(grad []float64) error {
	m, d := g.m, g.d
	a := g.a[:m*m]
	alpha := g.alpha[:m]
	if !g.be.la.Dpotri(blas.Lower, m, a, m) {
		return fmt.Errorf("linalg/%s: gp: inverse of %d×%d kernel: %w", g.be.name, m, m, ErrNotPositiveDefinite)
	}
	// P = (ααᵀ − K⁻¹) ∘ G on the lower triangle (elementwise), and
	// tr(ααᵀ − K⁻¹).
	var trW float64
	for i, ai := range alpha {
		trW += ai*ai - a[i*m+i]
	}
	// Q = P·[Z 1]: its column d is r = P·1. With ∂K_ij/∂log ℓ_d =
	// G_ij (z_id − z_jd)², ½ Σ_ij P_ij (z_id − z_jd)² = Σ_i z_id (z_id r_i −
	// Q_id); ∂K/∂log σf = 2Kf gives Σ_ij P_ij = Σ_i r_i; ∂K/∂log σn = 2σn² I
	// gives σn² tr(W).
	ld := g.ld
	q := g.q[:m*ld]
	z := g.z[:m*ld]
	if g.be.rk != nil {
		// P is formed and multiplied in one pass; the parts' sums are
		// added in a fixed order.
		parts := gradSplit(m)
		g.rows(taskGrad, m, parts)
		for k := 1; k < parts; k++ {
			floats.Add(q, g.qparts[(k-1)*g.n*ld:][:m*ld])
		}
	} else {
		g.rows(taskP, m, 0)
		g.be.bl.Dsymm(blas.Left, blas.Lower, m, d+1, 1, g.p[:m*m], m, z, ld, 0, q, ld)
	}
	for j := 0; j < d; j++ {
		grad[j] = 0
	}
	var gf float64
	for i := 0; i < m; i++ {
		zi := z[i*ld : i*ld+d]
		qi := q[i*ld : i*ld+ld]
		ri := qi[d]
		gf += ri
		for j, zv := range zi {
			grad[j] += zv * (zv*ri - qi[j])
		}
	}
	if g.kern != KernelSE {
		// G is not Kf here: ½tr(W·2Kf) = tr(W·A) − (σn²+jitter)·tr(W)
		// with A = Kf + (σn²+jitter)·I and tr(W·A) = αᵀAα − m = yᵀα − m.
		gf = g.quad - float64(m) - (g.sn2+g.jitter)*trW
	}
	grad[d] = gf
	grad[d+1] = g.sn2 * trW
	for j, v := range grad {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("linalg/%s: gp: gradient component %d is %v", g.be.name, j, v)
		}
	}
	return nil
}

func (c *cpuBackend) NewMVN(w []float64, n, d int) (MVN, error) {
	if n < 1 || d < 1 || len(w) != n*d {
		return nil, fmt.Errorf("linalg/%s: mvn data: %d values for %d×%d", c.name, len(w), n, d)
	}
	for i, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("linalg/%s: mvn data: w[%d,%d] = %v", c.name, i/d, i%d, v)
		}
	}
	m := &cpuMVN{be: c, n: n, d: d, w: append([]float64(nil), w...), sq: make([]float64, n), csq: make([]float64, n+1), gat: make([]float64, n*d), colsum: make([]float64, d), ones: make([]float64, n)}
	for i := range m.ones {
		m.ones[i] = 1
	}
	for i := 0; i < n; i++ {
		var s float64
		for _, v := range w[i*d : i*d+d] {
			s += v * v
		}
		m.sq[i] = s
	}
	m.cumulate()
	return m, nil
}

// cumulate sets csq from sq.
func (m *cpuMVN) cumulate() {
	var c float64
	for r, v := range m.sq {
		m.csq[r] = c
		c += v
	}
	m.csq[m.n] = c
}

type cpuMVN struct {
	be     *cpuBackend
	n, d   int
	w, sq  []float64
	csq    []float64 // csq[r] = Σ_{i<r} sq[i], in row order (len n+1)
	gat    []float64 // gathered subset rows
	g      []float64 // n×B products, grown on demand
	colsum []float64
	ones   []float64 // n ones, for column sums through the BLAS
	order  []int     // row r holds observation order[r]; nil: identity
	pos    []int     // pos[i] is observation i's row; nil: identity
	rowTmp []float64 // Reorder's one-row buffer
	seen   []bool    // Reorder's check that perm is a permutation, then its rows done
}

// Reorder lays the resident rows out so that row r holds observation
// perm[r]: a subset that is a prefix perm[:k] is then read as the first k
// rows, contiguously. Subsets keep naming observations by their index.
func (m *cpuMVN) Reorder(perm []int) error {
	n, d := m.n, m.d
	if len(perm) != n {
		return fmt.Errorf("linalg/%s: mvn reorder: permutation of length %d for %d observations", m.be.name, len(perm), n)
	}
	if m.order == nil {
		m.order, m.pos, m.rowTmp, m.seen = make([]int, n), make([]int, n), make([]float64, d), make([]bool, n)
		for i := range m.pos {
			m.order[i], m.pos[i] = i, i
		}
	}
	// Validate before touching anything: every index in range, none twice.
	clear(m.seen)
	for r, i := range perm {
		if i < 0 || i >= n || m.seen[i] {
			return fmt.Errorf("linalg/%s: mvn reorder: perm[%d] = %d is out of range or repeated", m.be.name, r, i)
		}
		m.seen[i] = true
	}
	// Move the rows in place, along the cycles of the permutation
	// r ← pos[perm[r]] (row r receives the row that now holds observation
	// perm[r]): each row is copied once and nothing outside the data is
	// touched. Gathering into a second buffer instead took twice as long
	// inside an STT run, where that buffer had gone cold since the last
	// reorder. seen now marks the rows done.
	clear(m.seen)
	for start := range perm {
		if m.seen[start] {
			continue
		}
		m.seen[start] = true
		if m.pos[perm[start]] == start {
			continue
		}
		copy(m.rowTmp, m.w[start*d:start*d+d])
		sq0 := m.sq[start]
		for r := start; ; {
			src := m.pos[perm[r]]
			if src == start {
				copy(m.w[r*d:r*d+d], m.rowTmp)
				m.sq[r] = sq0
				break
			}
			copy(m.w[r*d:r*d+d], m.w[src*d:src*d+d])
			m.sq[r] = m.sq[src]
			m.seen[src] = true
			r = src
		}
	}
	copy(m.order, perm)
	for r, i := range perm {
		m.pos[i] = r
	}
	m.cumulate()
	return nil
}

// run reports whether subset (non-empty) is held in consecutive rows of
// the current order — a prefix of it, or a run such as perm[a:b] after
// Reorder(perm) — and if so the first of them, so that it can be read
// contiguously.
func (m *cpuMVN) run(subset []int) (int, bool) {
	start := m.row(subset[0])
	if start+len(subset) > m.n {
		return 0, false
	}
	if m.order == nil {
		for r, i := range subset {
			if i != start+r {
				return 0, false
			}
		}
		return start, true
	}
	return start, equalInts(subset, m.order[start:start+len(subset)])
}

// equalInts is slices.Equal for ints, compared as bytes (memcmp speed:
// the check runs on every evaluation of a subset, and on an MVN model it
// cost as much as a tenth of the evaluation).
func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	n := len(a) * int(unsafe.Sizeof(a[0]))
	return bytes.Equal(unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), n), unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), n))
}

// row returns observation i's row.
func (m *cpuMVN) row(i int) int {
	if m.pos == nil {
		return i
	}
	return m.pos[i]
}

func (m *cpuMVN) N() int       { return m.n }
func (m *cpuMVN) D() int       { return m.d }
func (m *cpuMVN) Close() error { *m = cpuMVN{be: m.be}; return nil }

func (m *cpuMVN) SumSq(subset []int, t []float64, B int, out, resid []float64) error {
	k, err := checkSubset(m.be.name, subset, m.n)
	if err != nil {
		return err
	}
	start, contiguous := 0, subset == nil
	if !contiguous {
		start, contiguous = m.run(subset)
	}
	return m.sumSq(subset, k, start, contiguous, t, B, out, resid)
}

// sumSq is SumSq on a checked subset of k observations, held in rows
// start..start+k−1 if contiguous.
func (m *cpuMVN) sumSq(subset []int, k, start int, contiguous bool, t []float64, B int, out, resid []float64) error {
	d := m.d
	if B < 1 || len(t) < B*d || len(out) < B || (resid != nil && len(resid) < B*d) {
		return fmt.Errorf("linalg/%s: mvn: batch of %d with len(t) = %d, len(out) = %d, len(resid) = %d (D = %d)", m.be.name, B, len(t), len(out), len(resid), d)
	}
	if B == 1 && !contiguous {
		m.sumSqRows(subset, t[:d], out, resid)
		return nil
	}
	if len(m.g) < k*B {
		m.g = make([]float64, m.n*B)
	}
	ws := m.w[start*d : (start+k)*d]
	var sqSum float64
	if contiguous {
		for _, v := range m.sq[start : start+k] {
			sqSum += v
		}
	} else {
		for r, i := range subset {
			src := m.row(i)
			copy(m.gat[r*d:r*d+d], m.w[src*d:src*d+d])
			sqSum += m.sq[src]
		}
		ws = m.gat[:k*d]
	}
	g := m.g[:k*B]
	if B == 1 {
		// A GEMM with one column is a GEMV; BLAS GEMMs pack their operands,
		// which for one column costs more than the product.
		m.be.bl.Dgemv(blas.NoTrans, k, d, 1, ws, d, t[:d], 1, 0, g, 1)
	} else {
		m.be.bl.Dgemm(blas.NoTrans, blas.Trans, k, B, d, 1, ws, d, t[:B*d], d, 0, g, B)
	}
	dots := out[:B]
	clear(dots)
	if B == 1 {
		dots[0] = m.be.bl.Ddot(k, g, 1, m.ones[:k], 1)
	} else {
		for r := 0; r < k; r++ {
			for b, v := range g[r*B : r*B+B] {
				dots[b] += v
			}
		}
	}
	fk := float64(k)
	for b := 0; b < B; b++ {
		var tt float64
		for _, v := range t[b*d : b*d+d] {
			tt += v * v
		}
		s := sqSum - 2*dots[b] + fk*tt
		if s < 0 {
			s = 0
		}
		out[b] = s
	}
	if resid != nil {
		// Σ_{n∈S} w_n = W_Sᵀ·1, through the BLAS: a Go loop here costs as
		// much as the GEMM.
		cs := m.colsum
		m.be.bl.Dgemv(blas.Trans, k, d, 1, ws, d, m.ones[:k], 1, 0, cs, 1)
		for b := 0; b < B; b++ {
			for j := 0; j < d; j++ {
				resid[b*d+j] = cs[j] - fk*t[b*d+j]
			}
		}
	}
	return nil
}

// SumSqPrefixes implements PrefixMVN: sumSq's contiguous path leaves the
// products w_r·t of the subset's rows, in order, in m.g, and csq gives
// the sums of |w_r|² over runs of rows.
func (m *cpuMVN) SumSqPrefixes(subset []int, t, out, resid []float64, ks []int, pre []float64) (bool, error) {
	k, err := checkSubset(m.be.name, subset, m.n)
	if err != nil {
		return false, err
	}
	if len(pre) != len(ks) {
		return false, fmt.Errorf("linalg/%s: mvn: %d prefix lengths but %d outputs", m.be.name, len(ks), len(pre))
	}
	for _, kj := range ks {
		if kj < 1 || kj > k {
			return false, fmt.Errorf("linalg/%s: mvn: prefix of %d observations of a subset of %d", m.be.name, kj, k)
		}
	}
	// A nil subset is all rows, read contiguously in any order, but its
	// prefixes are observations 0..k−1: rows 0..k−1 only in the original
	// order.
	start, contiguous, prefixes := 0, true, m.order == nil
	if subset != nil {
		start, contiguous = m.run(subset)
		prefixes = contiguous
	}
	if err := m.sumSq(subset, k, start, contiguous, t, 1, out, resid); err != nil || !prefixes {
		return false, err
	}
	tt := floats.Dot(t[:m.d], t[:m.d])
	// Σ_{r<k} w_r·t for each k: from the shortest prefix up, one pass,
	// when the ks are decreasing (the samplers' order); else one sum each.
	desc := slices.IsSortedFunc(ks, func(a, b int) int { return b - a })
	var dot float64
	at := 0
	for j := len(ks) - 1; j >= 0; j-- {
		kj := ks[j]
		if desc {
			dot += m.be.bl.Ddot(kj-at, m.g[at:], 1, m.ones, 1)
			at = kj
		} else {
			dot = m.be.bl.Ddot(kj, m.g, 1, m.ones, 1)
		}
		s := m.csq[start+kj] - m.csq[start] - 2*dot + float64(kj)*tt
		pre[j] = max(s, 0)
	}
	return true, nil
}

// sumSqRows is SumSq for one point t and a subset: one pass over the
// subset's rows (a dot product and, for resid, an accumulation each, with
// gonum's assembly kernels) instead of a gather into a contiguous block
// followed by two BLAS passes over it.
func (m *cpuMVN) sumSqRows(subset []int, t, out, resid []float64) {
	d := m.d
	var sqSum, dot float64
	cs := m.colsum
	clear(cs)
	for _, i := range subset {
		r := m.row(i)
		w := m.w[r*d : r*d+d]
		sqSum += m.sq[r]
		if resid != nil {
			dot += dotAdd(w, t, cs)
		} else {
			dot += floats.Dot(w, t)
		}
	}
	k := float64(len(subset))
	s := sqSum - 2*dot + k*floats.Dot(t, t)
	if s < 0 {
		s = 0
	}
	out[0] = s
	if resid != nil {
		for j := range d {
			resid[j] = cs[j] - k*t[j]
		}
	}
}

// dotAdd returns w·t and adds w to cs, in one pass (len(t), len(cs) ≥
// len(w)); four accumulators let the loop pipeline.
func dotAdd(w, t, cs []float64) float64 {
	n := len(w)
	t, cs = t[:n], cs[:n]
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= n; j += 4 {
		w0, w1, w2, w3 := w[j], w[j+1], w[j+2], w[j+3]
		s0 += w0 * t[j]
		s1 += w1 * t[j+1]
		s2 += w2 * t[j+2]
		s3 += w3 * t[j+3]
		cs[j] += w0
		cs[j+1] += w1
		cs[j+2] += w2
		cs[j+3] += w3
	}
	for ; j < n; j++ {
		s0 += w[j] * t[j]
		cs[j] += w[j]
	}
	return (s0 + s1) + (s2 + s3)
}
