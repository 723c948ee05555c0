"""GraphQL documents shaped by what the target's schema declares."""

from __future__ import annotations

from typing import Any

from patgate.basics.observed import Observed
from patgate.runner.connection.documents import Documents, organization_ids


def _type(kind: str, name: str | None = None, of: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"kind": kind, "name": name, "ofType": of}


def _schema(delete_type: dict[str, Any], organizations: dict[str, Any]) -> dict[str, Any]:
    return {
        "roots": {
            "data": {
                "__schema": {
                    "mutationType": {
                        "fields": [{"name": "deletePersonalAccessToken", "type": delete_type}]
                    },
                    "queryType": {"fields": [{"name": "viewer", "type": _type("OBJECT", "Me")}]},
                }
            }
        },
        "Me": {"data": {"__type": {"fields": [{"name": "organizations", "type": organizations}]}}},
        "OrgPage": {"data": {"__type": {"fields": [{"name": "nodes"}, {"name": "total"}]}}},
    }


def _sender(answers: dict[str, Any]) -> Any:
    sent: list[str] = []

    def send(query: str) -> Observed:
        sent.append(query)
        for name, body in answers.items():
            if (name == "roots" and "__schema" in query) or f'"{name}"' in query:
                return Observed.of_json(200, body)
        return Observed.of_json(400, {"errors": [{"message": "no"}]})

    send.sent = sent  # type: ignore[attr-defined]
    return send


def test_an_object_result_gets_a_selection_and_a_list_of_organizations_is_read() -> None:
    documents = Documents()
    organizations = _type("NON_NULL", of=_type("LIST", of=_type("OBJECT", "Organization")))
    documents.discover(_sender(_schema(_type("OBJECT", "DeletePayload"), organizations)))
    query, variables = documents.delete_token("abc")
    assert query == 'mutation { deletePersonalAccessToken(input: {id: "abc"}) { __typename } }'
    assert variables == {}
    assert "organizations { id name }" in documents.organizations()[0]


def test_a_scalar_result_has_no_selection_and_a_nodes_page_is_read() -> None:
    documents = Documents()
    delete = _type("NON_NULL", of=_type("SCALAR", "Boolean"))
    documents.discover(_sender(_schema(delete, _type("OBJECT", "OrgPage"))))
    assert documents.delete_token("abc")[0].endswith('(input: {id: "abc"}) }')
    assert "organizations { nodes { id name } }" in documents.organizations()[0]


def test_without_introspection_a_delete_is_resent_with_a_selection_when_it_did_not_validate() -> (
    None
):
    documents = Documents()
    documents.discover(lambda query: Observed.of_json(400, {"errors": [{"message": "off"}]}))
    assert documents.delete_selection is None
    did_not_validate = Observed.of_json(400, {"errors": [{"message": "needs a selection"}]})
    sent, _ = documents.delete_token("x")
    assert documents.learn_delete_from(did_not_validate, "x", sent) is True
    assert documents.delete_token("x")[0].endswith("{ __typename } }")
    resent, _ = documents.delete_token("x")
    assert documents.learn_delete_from(did_not_validate, "x", resent) is False


def test_a_delete_sent_before_a_step_beside_it_learned_the_selection_is_resent() -> None:
    # Two steps side by side: one sends a delete with no selection while the other reads
    # the schema (an object result). The first must still resend, or its token stays.
    documents = Documents()
    sent, _ = documents.delete_token("x")
    documents.discover(_sender(_schema(_type("OBJECT", "Deletion"), _type("OBJECT", "OrgPage"))))
    did_not_validate = Observed.of_json(400, {"errors": [{"message": "needs a selection"}]})
    assert documents.learn_delete_from(did_not_validate, "x", sent) is True
    assert documents.delete_token("x")[0] != sent


def test_without_introspection_a_delete_that_executed_keeps_the_scalar_form() -> None:
    documents = Documents()
    executed = Observed.of_json(200, {"data": {"deletePersonalAccessToken": True}})
    assert documents.learn_delete_from(executed, "x", documents.delete_token("x")[0]) is False
    assert documents.delete_selection == ""


def test_inputs_are_written_as_escaped_string_literals() -> None:
    query, _ = Documents().create_token('a "quoted"\nname \u00e9', "org")
    assert r'name: "a \"quoted\"\nname \u00e9"' in query
    assert 'organizationId: "org"' in query


def test_an_override_receives_its_input_as_variables() -> None:
    documents = Documents({"create_token": "mutation M($name: String!, $organizationId: ID!) {}"})
    query, variables = documents.create_token("n", "o")
    assert query.startswith("mutation M")
    assert variables == {"name": "n", "organizationId": "o"}


def test_an_overridden_delete_is_never_resent() -> None:
    documents = Documents({"delete_token": "mutation($id: ID!) { d(id: $id) { ok } }"})
    did_not_validate = Observed.of_json(400, {"errors": [{"message": "bad"}]})
    sent, _ = documents.delete_token("x")
    assert documents.learn_delete_from(did_not_validate, "x", sent) is False
    assert documents.delete_token("x") == (sent, {"id": "x"})


def test_organization_ids_are_read_from_any_known_shape() -> None:
    connection = {"data": {"viewer": {"organizations": {"edges": [{"node": {"id": "o1"}}]}}}}
    assert organization_ids(Observed.of_json(200, connection), None) == ["o1"]
    listed = {"data": {"viewer": {"organizations": [{"id": "o1"}, {"id": "o2"}]}}}
    assert organization_ids(Observed.of_json(200, listed), "list") == ["o1", "o2"]
    assert organization_ids(Observed.of_json(200, {"errors": []}), None) == []


def test_without_introspection_each_organizations_shape_is_tried_until_one_validates() -> None:
    documents = Documents()
    documents.discover(lambda query: Observed.of_json(400, {"errors": [{"message": "off"}]}))
    assert documents.organization_shapes() == ("connection", "nodes", "list")
    did_not_validate = Observed.of_json(400, {"errors": [{"message": "no field edges"}]})
    assert documents.learn_organizations_from(did_not_validate, "connection") is True
    assert documents.organizations_shape is None
    listed = Observed.of_json(200, {"data": {"viewer": {"organizations": [{"id": "o1"}]}}})
    assert documents.learn_organizations_from(listed, "list") is False
    assert documents.organizations_shape == "list"
    assert documents.organization_shapes() == (None,)
    assert "organizations { id name }" in documents.organizations()[0]


def test_a_refused_organizations_query_is_not_resent_and_teaches_no_shape() -> None:
    documents = Documents()
    refused = Observed.of_json(403, {"data": {"viewer": None}, "errors": [{"message": "denied"}]})
    assert documents.learn_organizations_from(refused, "connection") is False
    assert documents.organizations_shape is None
    learned = Documents({"organizations": "query { viewer { orgs { id } } }"})
    assert learned.organization_shapes() == (None,)
    rejected = Observed.of_json(400, {"errors": [{"message": "bad"}]})
    assert learned.learn_organizations_from(rejected, None) is False
