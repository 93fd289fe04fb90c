# sched/optimus
