# doc/man
