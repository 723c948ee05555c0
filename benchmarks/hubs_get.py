"""Hubs GET: one ``GET /v2/content/hubs`` and ``.json()`` through httpx, answered by the fake,
side by side with a bare respx route returning the same page, canned. Goal: at most 1.5x, so
the fake's own work costs less than the interception does.

The two interceptions take turns (each is started for its own batches only), so neither
sees the other's requests. It runs once with a client-credential token as the bearer (a JWT
the fake verifies on every request) and once with a PAT (a hash lookup).
"""

from __future__ import annotations

from benchmarks.pat_cycle import client_token
from benchmarks.registry import Benchmark, Plan
from benchmarks.timing import Goal, Result, Side, compare, interleave

__all__ = ["BENCHMARKS", "run", "run_one"]

GOAL = 1.5


def run(plan: Plan) -> list[Result]:
    """The GET with a client token, then with a PAT."""
    rounds = plan.rounds_for(30, 8)
    return [run_one(rounds, 50, bearer="client"), run_one(rounds, 50, bearer="pat")]


def run_one(rounds: int, batch: int, *, bearer: str = "client") -> Result:
    """Time both GETs in alternating batches of ``batch`` requests.

    ``bearer``: ``"client"`` (a client-credential token) or ``"pat"`` (the admin's PAT).
    """
    import httpx
    import respx

    from patgate import Fake

    fake = Fake()
    world = fake.world
    hubs_url = world["base_url"] + "/v2/content/hubs"
    with httpx.Client() as http:
        with fake:
            token = client_token(http, world) if bearer == "client" else world["admin_token"]
            auth = {"Authorization": "Bearer " + token}
            canned = http.get(hubs_url, headers=auth)
            canned.raise_for_status()
        body, content_type = canned.content, canned.headers["content-type"]

        bare = respx.MockRouter(assert_all_called=False, using="httpx")
        bare.get(hubs_url).mock(
            return_value=httpx.Response(200, content=body, headers={"Content-Type": content_type}),
        )

        def get_hubs() -> None:
            assert http.get(hubs_url, headers=auth).json()["_embedded"]["hubs"]

        samples_fake, samples_bare = interleave(
            Side("patgate fake", get_hubs, enter=fake.start, exit=fake.stop),
            Side("bare respx route", get_hubs, enter=bare.start, exit=bare.stop),
            rounds=rounds,
            batch=batch,
        )
    return compare(
        name="hubs_get" if bearer == "client" else "hubs_get_pat",
        title=f"Hubs GET through httpx, {'client token' if bearer == 'client' else 'PAT'}",
        unit="ms",
        a_label="patgate fake",
        a=[sample * 1000 for sample in samples_fake],
        b_label="bare respx route, the same page canned",
        b=[sample * 1000 for sample in samples_bare],
        ratio_label="fake / bare",
        goal=Goal("ratio", "<=", GOAL, "fake / bare"),
        details={"batch": batch, "bearer": bearer, "body_bytes": len(body)},
    )


BENCHMARKS = [Benchmark("hubs_get", run, order=20, description="hubs GET against a bare route")]
