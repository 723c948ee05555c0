// A first session with the vendor's JS management SDK against a patgate fake.
//
// Environment: PATGATE_API_URL ({base_url}/v2/content), PATGATE_AUTH_URL, and either
// PATGATE_PAT or PATGATE_CLIENT_ID + PATGATE_CLIENT_SECRET. NODE_PATH points at the cache
// folder holding the pinned package. Prints one JSON object: what the SDK read, or the
// status and message of the first call that failed.
"use strict";

const { DynamicContent } = require("dc-management-sdk-js");

const env = process.env;
const credentials = env.PATGATE_PAT
  ? { patToken: env.PATGATE_PAT }
  : { client_id: env.PATGATE_CLIENT_ID, client_secret: env.PATGATE_CLIENT_SECRET };
const client = new DynamicContent(credentials, {
  apiUrl: env.PATGATE_API_URL,
  authUrl: env.PATGATE_AUTH_URL,
});

const RELATED = {
  "content-repositories": (hub) => hub.related.contentRepositories.list(),
  "content-types": (hub) => hub.related.contentTypes.list(),
  "content-type-schemas": (hub) => hub.related.contentTypeSchema.list(),
  "workflow-states": (hub) => hub.related.workflowStates.list(),
  extensions: (hub) => hub.related.extensions.list(),
  webhooks: (hub) => hub.related.webhooks.list(),
  events: (hub) => hub.related.events.list(),
};

async function session() {
  const hubIds = [];
  let pages = 0;
  for (let number = 0; ; number += 1) {
    const page = await client.hubs.list({ page: number, size: 2 });
    pages += 1;
    hubIds.push(...page.getItems().map((hub) => hub.id));
    if (number + 1 >= page.page.totalPages) break;
  }
  const hub = await client.hubs.get(hubIds[0]);
  const related = {};
  for (const [name, list] of Object.entries(RELATED)) {
    const page = await list(hub);
    related[name] = page.getItems().map((item) => item.toJSON());
  }
  const repository = await client.contentRepositories.get(related["content-repositories"][0].id);
  const schema = await client.contentTypeSchemas.get(related["content-type-schemas"][0].id);
  const contentType = await client.contentTypes.get(related["content-types"][0].id);
  const state = await hub.related.workflowStates.get(related["workflow-states"][0].id);
  const webhook = await hub.related.webhooks.get(related.webhooks[0].id);
  const event = await client.events.get(related.events[0].id);
  return {
    ok: true,
    hubIds,
    pages,
    hub: { id: hub.id, name: hub.name },
    related,
    singles: {
      "content-repository": repository.name,
      "content-type-schema": schema.schemaId,
      "content-type": contentType.contentTypeUri,
      "workflow-state": state.label,
      webhook: webhook.label,
      event: event.name,
    },
  };
}

session().then(
  (result) => console.log(JSON.stringify(result)),
  (error) => {
    const status = error && error.response ? error.response.status : null;
    console.log(JSON.stringify({ ok: false, status, message: String(error && error.message) }));
  },
);
