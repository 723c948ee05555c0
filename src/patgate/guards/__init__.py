"""Where untrusted bytes meet patgate: supplied files read with bounds, answers decoded with
bounds, secrets redacted, target text printed harmlessly, httpx's private parts named once."""
