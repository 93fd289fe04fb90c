# spank/optimus
