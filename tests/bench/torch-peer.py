"""PyTorch peer of `npm run bench:trainer`: the same decoder, shapes and work, timed on the threads asked for.

Run by tests/bench/trainer.ts when a python with torch is found; alone:
  python tests/bench/torch-peer.py --config '{"vocabSize":96,"dModel":128,...}' --batch 8 --seq 96

The model is the one trainer/model/ builds: token embedding tied to the output head, per layer
RMSNorm -> q/k/v (bias when arch is qwen2) -> RoPE (rotate-half) -> causal grouped-query attention
-> o, RMSNorm -> SwiGLU, then a final RMSNorm. Training is forward + backward + Adam on `[batch, seq]`
rows with the mean next-token NLL. Sampling is batch-wide decoding with a preallocated KV cache:
prefill the prompts, then one token per row per step drawn from softmax(logits) with its logprob,
as edgegym's sampler does. It prints one JSON line; `_per_cpu_s` figures divide by this process's
CPU time (on 2 threads that counts both threads, so wall time is the figure to compare there).
"""

import argparse
import json
import math
import os
import time

import torch
import torch.nn.functional as F


class Decoder(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        d, h, kv = c["dModel"], c["nHeads"], c["nKvHeads"]
        self.hd = d // h
        bias = c.get("arch", "qwen2") == "qwen2"
        self.embed = torch.nn.Embedding(c["vocabSize"], d)
        self.layers = torch.nn.ModuleList()
        for _ in range(c["nLayers"]):
            layer = torch.nn.Module()
            layer.norm1 = torch.nn.RMSNorm(d, eps=c.get("rmsNormEps", 1e-6))
            layer.q = torch.nn.Linear(d, h * self.hd, bias=bias)
            layer.k = torch.nn.Linear(d, kv * self.hd, bias=bias)
            layer.v = torch.nn.Linear(d, kv * self.hd, bias=bias)
            layer.o = torch.nn.Linear(h * self.hd, d, bias=False)
            layer.norm2 = torch.nn.RMSNorm(d, eps=c.get("rmsNormEps", 1e-6))
            layer.gate = torch.nn.Linear(d, c["dFf"], bias=False)
            layer.up = torch.nn.Linear(d, c["dFf"], bias=False)
            layer.down = torch.nn.Linear(c["dFf"], d, bias=False)
            self.layers.append(layer)
        self.norm = torch.nn.RMSNorm(d, eps=c.get("rmsNormEps", 1e-6))
        for p in self.parameters():
            if p.dim() == 2:
                torch.nn.init.normal_(p, std=0.02)
        theta = c.get("ropeTheta", 10000.0)
        inv = theta ** (-torch.arange(0, self.hd, 2, dtype=torch.float32) / self.hd)
        angles = torch.outer(torch.arange(c["contextLength"], dtype=torch.float32), inv)
        angles = torch.cat([angles, angles], dim=-1)
        self.register_buffer("cos", angles.cos(), persistent=False)
        self.register_buffer("sin", angles.sin(), persistent=False)

    def rope(self, x, pos):
        """x [B, heads, T, hd]; pos [B, T] positions."""
        cos, sin = self.cos[pos].unsqueeze(1), self.sin[pos].unsqueeze(1)
        half = self.hd // 2
        rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
        return x * cos + rotated * sin

    def heads(self, layer, a, pos):
        b, t, _ = a.shape
        h, kv = self.c["nHeads"], self.c["nKvHeads"]
        q = layer.q(a).view(b, t, h, self.hd).transpose(1, 2)
        k = layer.k(a).view(b, t, kv, self.hd).transpose(1, 2)
        v = layer.v(a).view(b, t, kv, self.hd).transpose(1, 2)
        return self.rope(q, pos), self.rope(k, pos), v

    def mlp(self, layer, x):
        return layer.down(F.silu(layer.gate(x)) * layer.up(x))

    def forward(self, ids):
        b, t = ids.shape
        pos = torch.arange(t).expand(b, t)
        x = self.embed(ids)
        gqa = self.c["nHeads"] != self.c["nKvHeads"]
        for layer in self.layers:
            q, k, v = self.heads(layer, layer.norm1(x), pos)
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=gqa)
            x = x + layer.o(o.transpose(1, 2).reshape(b, t, -1))
            x = x + self.mlp(layer, layer.norm2(x))
        return self.norm(x) @ self.embed.weight.T

    @torch.inference_mode()
    def sample(self, prompts, new_tokens, generator):
        """Prompts of equal length [B, P]; returns tokens [B, new] and their logprobs."""
        b, p = prompts.shape
        kv, total = self.c["nKvHeads"], p + new_tokens
        gqa = self.c["nHeads"] != kv
        cache = [
            (torch.empty(b, kv, total, self.hd), torch.empty(b, kv, total, self.hd)) for _ in self.layers
        ]
        ids, start = prompts, 0
        tokens, logprobs = [], []
        for _ in range(new_tokens):
            t = ids.shape[1]
            pos = torch.arange(start, start + t).expand(b, t)
            x = self.embed(ids)
            for layer, (kc, vc) in zip(self.layers, cache):
                q, k, v = self.heads(layer, layer.norm1(x), pos)
                kc[:, :, start : start + t] = k
                vc[:, :, start : start + t] = v
                keys, values = kc[:, :, : start + t], vc[:, :, : start + t]
                o = F.scaled_dot_product_attention(q, keys, values, is_causal=t > 1, enable_gqa=gqa)
                x = x + layer.o(o.transpose(1, 2).reshape(b, t, -1))
                x = x + self.mlp(layer, layer.norm2(x))
            logp = torch.log_softmax(self.norm(x[:, -1]) @ self.embed.weight.T, dim=-1)
            nxt = torch.multinomial(logp.exp(), 1, generator=generator)
            tokens.append(nxt)
            logprobs.append(logp.gather(1, nxt))
            ids, start = nxt, start + t
        return torch.cat(tokens, 1), torch.cat(logprobs, 1)


def timed(fn, min_seconds):
    """Runs fn() until min_seconds of wall time passed; returns (calls, wall s, cpu s)."""
    calls, wall0, cpu0 = 0, time.perf_counter(), time.process_time()
    while True:
        fn()
        calls += 1
        if time.perf_counter() - wall0 >= min_seconds:
            return calls, time.perf_counter() - wall0, time.process_time() - cpu0


def run(c, a, threads):
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    model = Decoder(c)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    gen = torch.Generator().manual_seed(7)
    ids = torch.randint(0, c["vocabSize"], (a.batch, a.seq), generator=gen)
    targets = torch.randint(0, c["vocabSize"], (a.batch, a.seq), generator=gen)

    def step():
        opt.zero_grad(set_to_none=True)
        logits = model(ids)
        loss = F.cross_entropy(logits.view(-1, c["vocabSize"]), targets.view(-1))
        loss.backward()
        opt.step()

    for _ in range(3):
        step()
    calls, wall, cpu = timed(step, a.min_seconds)
    trained = calls * a.batch * a.seq

    prompts = torch.randint(0, c["vocabSize"], (a.sample_batch, a.prompt_len), generator=gen)
    model.sample(prompts, a.new_tokens, gen)  # untimed at the timed size, as edgegym's side does
    sampled = []
    scalls, swall, scpu = timed(lambda: sampled.append(model.sample(prompts, a.new_tokens, gen)[0].numel()), a.min_seconds)
    return {
        "torch_threads": torch.get_num_threads(),
        "train_tokens_per_s": round(trained / wall),
        "train_tokens_per_cpu_s": round(trained / cpu),
        "sample_tokens_per_s": round(sum(sampled) / swall),
        "sample_tokens_per_cpu_s": round(sum(sampled) / scpu),
        "train_steps": calls,
        "sample_calls": scalls,
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--config", required=True, help="the model config as JSON (edgegym ModelConfig)")
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--seq", type=int, default=96)
    p.add_argument("--sample-batch", type=int, default=64)
    p.add_argument("--prompt-len", type=int, default=32)
    p.add_argument("--new-tokens", type=int, default=64)
    p.add_argument("--min-seconds", type=float, default=2.0, help="least wall time of the training loop and of the sampling loop")
    p.add_argument("--threads", default="1,2")
    a = p.parse_args()
    c = json.loads(a.config)
    if not c.get("tieEmbeddings", True):
        raise SystemExit("torch-peer: only tied embeddings are modelled")
    if c["dModel"] % c["nHeads"] or (c["dModel"] // c["nHeads"]) % 2 or math.gcd(c["nHeads"], c["nKvHeads"]) != c["nKvHeads"]:
        raise SystemExit("torch-peer: shapes do not fit together")
    torch.set_num_interop_threads(1)
    threads = {t: run(c, a, int(t)) for t in a.threads.split(",")}
    print(
        json.dumps(
            {
                "torch": torch.__version__,
                "cpus": os.cpu_count(),
                "load_average": [round(x, 1) for x in os.getloadavg()],
                "threads": threads,
            }
        )
    )


if __name__ == "__main__":
    main()
