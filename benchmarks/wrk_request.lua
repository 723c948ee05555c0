-- wrk script for benchmarks/loopback.py: the request comes from the environment, and the
-- summary is printed as one JSON line (latencies in microseconds).
local token = os.getenv("PATGATE_WRK_TOKEN")
local body_path = os.getenv("PATGATE_WRK_BODY")

if token then
  wrk.headers["Authorization"] = "Bearer " .. token
end
if body_path then
  local file = assert(io.open(body_path, "rb"))
  wrk.body = file:read("*a")
  file:close()
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

done = function(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    '{"requests": %d, "duration_us": %d, "socket_errors": %d, "status_errors": %d, ' ..
    '"p50_us": %d, "p99_us": %d}\n',
    summary.requests, summary.duration,
    errors.connect + errors.read + errors.write + errors.timeout, errors.status,
    latency:percentile(50), latency:percentile(99)))
end
