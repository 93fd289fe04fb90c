# Example configuration files, installed for reference.
exampledir = $(docdir)/examples
dist_example_DATA = etc/slurm.conf.example etc/plugstack.conf.example
