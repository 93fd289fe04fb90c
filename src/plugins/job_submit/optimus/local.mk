# job_submit/optimus
