module github.com/hprof2pprof/hprof2pprof

go 1.26

require github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe
