import { SELF } from "cloudflare:test";
import { describeOpenEnv } from "../openenv/index.js";
import { workerdSocket } from "../openenv/workerd-socket.js";
import { hubClient, newTeam } from "./client.js";
import { plainBundle, pushEnv } from "./hosted/push.js";

const hub = hubClient((r) => SELF.fetch(r));

describeOpenEnv("a pushed guess-number through the hub gateway", async () => {
  const a = await newTeam(hub);
  const { ref, published } = await pushEnv(hub, a, plainBundle());
  if (published.status !== 201) throw new Error(JSON.stringify(published.body));
  const send = (input: string | URL | Request, init?: RequestInit) => SELF.fetch(input, init);
  return {
    baseUrl: `http://hub.test/v1/envs/${ref}`,
    fetch: send,
    connect: (url) => workerdSocket(send, url),
  };
});
