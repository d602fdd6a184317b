package distributions

// Shorthands for the Java mode's constructors in tests.

func javaAccess(kind AccessKind, spec Spec, min, max int64, real *RealData, cur *RealCursors) (*Access, error) {
	return JavaMode(cur).Access(kind, spec, min, max, real)
}

func javaDistribution(spec Spec, min, max int64, real *RealData, cur *RealCursors) (Distribution, error) {
	return JavaMode(cur).Distribution(spec, min, max, real)
}

func javaArithmetic(mode string, nlinksDefault, nlinksConfig, min, max int64) (OutDegree, error) {
	return JavaMode(nil).ArithmeticOutDegree(mode, nlinksDefault, nlinksConfig, min, max)
}

func newZipfJava(min, max int64, shape, mean float64, hasMean bool) (*zipfJava, error) {
	d, err := JavaMode(nil).Distribution(Spec{Kind: KindZipf, Shape: shape, Mean: mean, HasMean: hasMean}, min, max, nil)
	if err != nil {
		return nil, err
	}
	return d.(*zipfJava), nil
}
