package mvn

// target mirrors tempering.Target without Clone (models do not import
// tempering; Clone returns *Model here and the CLI adapts it): the model
// must keep satisfying it.
type target interface {
	Dim() int
	NumObs() int
	LogPrior(u, grad []float64) float64
	LogLik(subset []int, u, grad []float64) (float64, error)
}

var (
	_ target                               = (*Model)(nil)
	_ interface{ Clone() (*Model, error) } = (*Model)(nil)
)
