"""No-harm evaluation on held-out text: what each filter chain drops that is still true."""
