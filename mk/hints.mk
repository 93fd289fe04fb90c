# hints: core sources, unit tests, tools and benchmarks (see HACKING.md)
