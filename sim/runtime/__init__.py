"""Playing: a batch of deals on the kernel thread, batched strategies in lock-step, one deal stepped by hand, the kernels readied."""
