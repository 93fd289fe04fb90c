# doc/man
dist_man_MANS += doc/man/optimusctl.1 doc/man/optimus-report.1
dist_man_MANS += doc/man/optimus-sim.1
