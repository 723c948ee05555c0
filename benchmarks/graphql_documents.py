"""GraphQL documents: what a token listing costs the fake when its text is new, side by side
with a repeated text, through ``execute_graph_request`` (limits, cache, execution).

- a *variant*: a text never seen, differing from a validated one only in a comment,
  whitespace and an alias name. It is parsed and printed, but not validated again.
- a *new document*: every cache emptied first, so it is parsed and validated, as any text
  was before documents were cached by shape. Goal: a variant costs at most 0.5x that.
- the same text repeated (cached by text), in the note.
"""

from __future__ import annotations

import itertools

from benchmarks.registry import Benchmark, Plan
from benchmarks.timing import Goal, Result, Side, compare, interleave, paired, stats

__all__ = ["BENCHMARKS", "run"]

LISTING = "{ viewer { personalAccessTokens { id name token createdDate lastUsedDate } } }"
NEW_GOAL = 0.5


def run(plan: Plan) -> list[Result]:
    """Time the three kinds of text in interleaved rounds (variant against each other)."""
    from patgate.fake.deployment import Deployment
    from patgate.fake.graph_documents import clear_caches
    from patgate.fake.graph_executor import execute_graph_request
    from patgate.fake.model import Principal
    from patgate.fake.world import build_default_world

    deployment = Deployment()
    world = build_default_world(deployment)
    admin = Principal(world.admin_id, world.organization_id, via="client")
    counter = itertools.count()

    def listing(text: str) -> None:
        assert execute_graph_request(deployment, admin, text).executed

    def repeated() -> None:
        listing(LISTING)

    def variant() -> None:
        number = next(counter)
        listing(
            f"# listing {number}\n{{ viewer {{\n  mine{number}: personalAccessTokens"
            " { id name token createdDate lastUsedDate } } }"
        )

    def new_document() -> None:
        clear_caches()
        listing(LISTING)

    rounds, batch = plan.rounds_for(20, 6), plan.pick(100, 40)
    listing(LISTING)
    variant()  # the variants' shape is validated once, here
    samples_variant, samples_new = interleave(
        Side("variant", variant), Side("new document", new_document), rounds=rounds, batch=batch
    )
    against_repeated, samples_repeated = interleave(
        Side("variant", variant), Side("repeated", repeated), rounds=rounds, batch=batch
    )
    repeated_ratio = stats(paired(against_repeated, samples_repeated, lambda x, y: x / y))
    return [
        compare(
            name="graphql_documents",
            title="GraphQL token listing, a new variant of a validated text",
            unit="us",
            a_label="variant",
            a=[sample * 1e6 for sample in samples_variant],
            b_label="a new document, parsed and validated",
            b=[sample * 1e6 for sample in samples_new],
            ratio_label="variant / new",
            goal=Goal("ratio", "<=", NEW_GOAL, "variant / new"),
            note=(
                f"the same text repeated costs {stats(samples_repeated, 1e6).text()} us;"
                f" variant / repeated {repeated_ratio.text()}: a new text is still parsed"
                " (graphql-core's parser, several times the execution), only its validation"
                " is spared."
            ),
        )
    ]


BENCHMARKS = [
    Benchmark("graphql_documents", run, order=15, description="new GraphQL texts against cached")
]
