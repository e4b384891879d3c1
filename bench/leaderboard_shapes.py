"""Two generative shapes of the Open LLM Leaderboard v2, written as lm-eval 0.4.x logs them, for audit_shapes.py.

- leaderboard IFEval (`ifeval_task`): 541 docs of one to three instructions, kwargs as the dataset holds
  them, responses of 1 to 3 kB of prose with the bullets, sections, placeholders and postscripts asked for
  (about four times in five), half of them beyond ASCII as model replies are (curly quotes, an em dash, an
  accented word). Only ids lbnorm's replay settles; each sample's strict and loose levels are that replay's
  outcomes (validator.harness.ifeval.replay, the port of lm-eval's checkers): honest by construction.
- leaderboard MATH hard (`math_tasks`): four subtasks at their Level 5 sizes (123 to 307 docs), 4-shot
  prompts whose examples carry LaTeX (many braces and backslashes), generations of 500 to 1500 characters
  ending with their \\boxed{} answer (half then add minerva's "Final Answer" line), exact_match 1 where that
  answer is doc.answer, which process_docs takes from the solution.
"""

from __future__ import annotations

import json
import random
import re

from support import harness_logs as hl

from validator.harness.ifeval import replay
from validator.harness.math_answers import boxed_answer

WORDS = """
the of and to in a is that for it as was with be by on not this are or from at which but have an they you
were there been one all we their has would when if more no out so what up its about into than them can only
other new some could time these two may then do first any now such like our over even most made after also
many before must through back years where much your way well down should because each just those people how
too little state good very make world still own see work long get here between both life being under never
day same another know while last might great old year off come since against go came right used take three
""".split()
BEYOND_ASCII = "“quite so”|—|café|naïve|résumé|façade|Zürich|déjà vu|don’t".split("|")


def sentence(rng: random.Random, low: int = 6, high: int = 22, fancy: float = 0.0) -> str:
    """Words, now and then a number, a comma, or (with probability `fancy`) something beyond ASCII."""
    words = rng.choices(WORDS, k=rng.randint(low, high))
    if rng.random() < fancy:
        words.insert(rng.randint(1, len(words)), rng.choice(BEYOND_ASCII))
    if rng.random() < 0.2:
        words.insert(rng.randrange(len(words)), str(rng.randint(2, 9999)))
    if len(words) > 6 and rng.random() < 0.35:
        words[rng.randint(2, len(words) - 3)] += ","
    text = " ".join(words)
    return text[0].upper() + text[1:] + rng.choices(".?!", [90, 7, 3])[0]


def paragraph(rng: random.Random, chars: int, fancy: float = 0.0) -> str:
    parts: list[str] = []
    while sum(len(part) + 1 for part in parts) < chars:
        parts.append(sentence(rng, fancy=fancy))
    return " ".join(parts)


# ------------------------------------------------------------------------------------------ IFEval
KWARG_KEYS = (
    "num_highlights relation num_words num_placeholders prompt_to_repeat num_paragraphs num_sentences "
    "num_bullets keywords section_spliter end_phrase forbidden_words nth_paragraph first_word language "
    "letter let_frequency let_relation postscript_marker capital_frequency capital_relation num_sections "
    "frequency keyword"
).split()
# Instruction -> its words in a prompt. Only ids the replay decides: not language:response_language,
# number_sentences, capital_word_frequency, english_capital/english_lowercase (langdetect, nltk).
INSTRUCTIONS = {
    "keywords:existence": "Include the keywords {keywords} in the response.",
    "keywords:frequency": "In your response, the word {keyword} should appear {relation} {frequency} times.",
    "keywords:forbidden_words": "Do not include keywords {forbidden_words} in the response.",
    "keywords:letter_frequency": "In your response, the letter {letter} should appear {let_relation} {let_frequency} times.",
    "length_constraints:number_words": "Answer with {relation} {num_words} words.",
    "length_constraints:number_paragraphs": "There should be {num_paragraphs} paragraphs. Paragraphs are separated with the markdown divider: ***",
    "length_constraints:nth_paragraph_first_word": "There should be {num_paragraphs} paragraphs. Paragraphs and only paragraphs are separated with each other by two new lines. The {nth_paragraph}-th paragraph must start with word {first_word}.",
    "detectable_content:number_placeholders": "The response must contain at least {num_placeholders} placeholders represented by square brackets, such as [address].",
    "detectable_content:postscript": "At the end of your response, please explicitly add a postscript starting with {postscript_marker}",
    "detectable_format:number_bullet_lists": "Your answer must contain exactly {num_bullets} bullet points. Use the markdown bullet points such as:\n* This is point 1. \n* This is point 2",
    "detectable_format:number_highlighted_sections": "Highlight at least {num_highlights} sections in your answer with markdown, i.e. *highlighted section*.",
    "detectable_format:multiple_sections": "Your response must have {num_sections} sections. Mark the beginning of each section with {section_spliter} X, such as:\n{section_spliter} 1\n[content of section 1]\n{section_spliter} 2\n[content of section 2]",
    "detectable_format:title": "Your answer must contain a title, wrapped in double angular brackets, such as <<poem of joy>>.",
    "combination:repeat_prompt": "First repeat the request word for word without change, then give your answer (1. do not say any words or characters before repeating the request; 2. the request you need to repeat does not include this sentence)",
    "startend:end_checker": "Finish your response with this exact phrase {end_phrase}. No other words should follow this phrase.",
    "punctuation:no_comma": "In your entire response, refrain from the use of any commas.",
    "startend:quotation": "Wrap your entire response with double quotation marks.",
    "detectable_format:constrained_response": 'Answer with one of the following options: ("My answer is yes.", "My answer is no.", "My answer is maybe.")',
    "detectable_format:json_format": "Entire output should be wrapped in JSON format. You can use markdown ticks such as ```.",
    "combination:two_responses": "Give two different responses. Responses and only responses should be separated by 6 asterisk symbols: ******.",
}
NAMES = {key: key for key in KWARG_KEYS}  # what a template names and its kwargs leave out
SOLO = ["detectable_format:json_format", "combination:two_responses"]  # the response's whole form
BODY = [i for i in INSTRUCTIONS if i not in SOLO]
# Each wants the end of the response: a doc asks for one of them at most
ENDERS = set(
    "startend:quotation detectable_format:constrained_response startend:end_checker "
    "detectable_content:postscript".split()
)
FORBIDDEN = ["banana", "quantum", "hurricane", "violin", "glacier", "pyramid", "lantern"]
END_PHRASES = ["Is there anything else I can help with?", "Any other questions?", "Peace!"]
PLACEHOLDERS = ["[name]", "[address]", "[date]", "[company]", "[phone number]", "[amount]"]
CONSTRAINED = ("My answer is yes.", "My answer is no.", "My answer is maybe.")
HIGHER = {"higher_is_better": True}
AGG_INST_LEVEL_ACC = "def agg_inst_level_acc(items):\n    flat_items = ..."


def generative(name: str, gen: dict, metrics: list[str], **fields) -> hl.Task:
    """A generate_until task, its config as the results file holds it."""
    config = {
        "task": name,
        **fields,
        "description": "",
        "target_delimiter": " ",
        "fewshot_delimiter": "\n\n",
        "metric_list": [
            {"metric": m, "aggregation": AGG_INST_LEVEL_ACC if "inst" in m else "mean"} | HIGHER
            for m in metrics
        ],
        "output_type": "generate_until",
        "generation_kwargs": gen,
        "repeats": 1,
        "should_decontaminate": False,
        "metadata": {"version": 3.0},
    }
    return hl.Task(name, config)


def sample_of(doc_id: int, doc: dict, target: str, prompt: str, task: hl.Task, response: str):
    """One sample as lm-eval logs a generation (the hashes before its metrics are merged in)."""
    gen = task.config["generation_kwargs"]
    sample = {
        "doc_id": doc_id,
        "doc": doc,
        "target": target,
        "arguments": {"gen_args_0": {"arg_0": prompt, "arg_1": dict(gen)}},
        "resps": [[response]],
        "filtered_resps": [response],
        "filter": "none",
        "metrics": [entry["metric"] for entry in task.config["metric_list"]],
    }
    return hl.with_hashes(sample)


def ifeval_body(rng, ids, comply, kw, size, fancy, request) -> str:
    """Paragraphs shaped by the instructions of the response's body, each followed where `comply` says."""
    n_par = rng.randint(2, 6)
    paragraphs = [paragraph(rng, size // n_par, fancy) for _ in range(n_par)]
    if (i := "length_constraints:nth_paragraph_first_word") in ids:
        nth = rng.randint(1, n_par)
        first = paragraphs[nth - 1].split()[0].strip(".,?!").lower()
        kw[i].update(num_paragraphs=n_par + (not comply[i]), nth_paragraph=nth, first_word=first)
    if (i := "detectable_format:number_highlighted_sections") in ids:
        count = rng.randint(1, 4)
        for _ in range(count):
            k = rng.randrange(n_par)
            words = paragraphs[k].split(" ")
            at = rng.randrange(max(1, len(words) - 3))
            words[at], words[at + 2] = "*" + words[at], words[at + 2] + "*"
            paragraphs[k] = " ".join(words)
        kw[i]["num_highlights"] = count if comply[i] else count + 2
    if (i := "detectable_format:number_bullet_lists") in ids:
        count = rng.randint(2, 6)
        bullets = "\n".join(f"{rng.choice('*-')} {sentence(rng, 4, 12)}" for _ in range(count))
        k = rng.randrange(n_par)
        paragraphs[k] += ":\n" + bullets
        kw[i]["num_bullets"] = count if comply[i] else count + rng.choice([-1, 1])
    if (i := "detectable_content:number_placeholders") in ids:
        count = rng.randint(1, 4)
        for _ in range(count):
            paragraphs[rng.randrange(n_par)] += f" Please contact {rng.choice(PLACEHOLDERS)}."
        kw[i]["num_placeholders"] = count if comply[i] else count + 2
    if (i := "detectable_format:multiple_sections") in ids:
        splitter = rng.choice(["Section", "SECTION", "PART", "Paragraph"])
        paragraphs = [f"{splitter} {k + 1}\n{p}" for k, p in enumerate(paragraphs)]
        kw[i].update(section_spliter=splitter, num_sections=n_par + 2 * (not comply[i]))
    if (i := "length_constraints:number_paragraphs") in ids:
        kw[i]["num_paragraphs"] = n_par + (not comply[i])
    response = ("\n\n***\n\n" if i in ids else "\n\n").join(paragraphs)
    if (i := "detectable_format:title") in ids and comply[i]:
        response = f"<<{sentence(rng, 2, 6).rstrip('.?!')}>>\n\n{response}"
    if (i := "combination:repeat_prompt") in ids:
        kw[i]["prompt_to_repeat"] = request
        response = f"{request}\n\n{response}" if comply[i] else response
    if (i := "detectable_format:constrained_response") in ids and comply[i]:
        response += "\n\n" + rng.choice(CONSTRAINED)
    if (i := "detectable_content:postscript") in ids:
        kw[i]["postscript_marker"] = marker = rng.choice(["P.S.", "P.P.S"])
        response += f"\n\n{marker} {sentence(rng)}" if comply[i] else ""
    if (i := "startend:end_checker") in ids:
        kw[i]["end_phrase"] = phrase = rng.choice(END_PHRASES)
        response += f" {phrase}" if comply[i] else ""
    if (i := "startend:quotation") in ids and comply[i]:
        response = f'"{response}"'
    if (i := "punctuation:no_comma") in ids and comply[i]:
        response = response.replace(",", "")
    return response


def bound(rng: random.Random, relation: str, follows: bool, count: int, step: int = 1) -> int:
    """A threshold, a multiple of `step`, that `count` meets under `relation` if `follows`, else misses."""
    base, steps = count // step * step, rng.randint(1, 3)
    above = follows == (relation == "less than")
    return base + step * steps if above else max(step, base - step * (steps - 1))


def ifeval_counts(rng, ids, comply, kw, response) -> None:
    """The kwargs measured on the final response: keywords, their counts, letters, words."""
    tokens = [w.strip('.,?!:;*"()[]<>“”').lower() for w in response.split()]
    tokens = [t for t in tokens if t.isalpha()] or ["the"]
    relation = rng.choice(["less than", "at least"])
    if (i := "keywords:existence") in ids:
        words = rng.sample(sorted(set(tokens)), min(len(set(tokens)), rng.randint(1, 3)))
        kw[i]["keywords"] = words + ([] if comply[i] else [rng.choice(FORBIDDEN)])
    if (i := "keywords:frequency") in ids:
        word = rng.choice(tokens)
        count = len(re.findall(re.escape(word), response, flags=re.IGNORECASE))
        count = bound(rng, relation, comply[i], count)
        kw[i].update(keyword=word, relation=relation, frequency=count)
    if (i := "keywords:forbidden_words") in ids:
        words = rng.sample(FORBIDDEN, rng.randint(1, 3))
        kw[i]["forbidden_words"] = words + ([] if comply[i] else [rng.choice(tokens)])
    if (i := "keywords:letter_frequency") in ids:
        letter = rng.choice("abcdefghijklmnoprstuwy")
        count = bound(rng, relation, comply[i], response.lower().count(letter))
        kw[i].update(letter=letter, let_relation=relation, let_frequency=count)
    if (i := "length_constraints:number_words") in ids:
        count = bound(rng, relation, comply[i], len(re.findall(r"\w+", response)), 50)
        kw[i].update(relation=relation, num_words=count)


def ifeval_doc(rng: random.Random, key: int) -> tuple[dict, str]:
    """A doc (its prompt, instruction ids and kwargs as the dataset holds them) and a response of 1-3 kB."""
    if rng.random() < 0.08:
        keywords = [i for i in BODY if i.startswith("keywords:")]
        ids = [rng.choice(SOLO), *rng.sample(keywords, rng.randint(0, 1))]
    else:
        ids = rng.sample(BODY, rng.choices([1, 2, 3], [45, 35, 20])[0])
        ids = [i for n, i in enumerate(ids) if i not in ENDERS or not ENDERS & set(ids[:n])]
    request = " ".join(sentence(rng, 10, 25) for _ in range(rng.randint(1, 4)))
    comply = {i: rng.random() < 0.78 for i in ids}
    kw = {i: dict.fromkeys(KWARG_KEYS) for i in ids}
    size, fancy = rng.randint(950, 2600), 0.15 if rng.random() < 0.5 else 0.0
    if ids[0] == "detectable_format:json_format":
        obj = {"title": sentence(rng, 3, 7), "summary": paragraph(rng, size // 3, fancy)}
        obj["points"] = [sentence(rng, fancy=fancy) for _ in range(rng.randint(3, 6))]
        obj["details"] = {"context": paragraph(rng, size // 4, fancy), "score": rng.randint(1, 10)}
        text = json.dumps(obj, indent=2, ensure_ascii=False)
        text = text if comply[ids[0]] else text[:-2] + ","  # cut off
        response = f"```json\n{text}\n```" if rng.random() < 0.5 else text
    elif ids[0] == "combination:two_responses":
        first = paragraph(rng, size // 2, fancy)
        second = paragraph(rng, size // 2, fancy) if comply[ids[0]] else first
        response = f"{first}\n******\n{second}"
    else:
        response = ifeval_body(rng, ids, comply, kw, size, fancy, request)
    ifeval_counts(rng, ids, comply, kw, response)
    filled = {i: {k: v for k, v in kw[i].items() if v is not None} for i in ids}
    instructions = " ".join(INSTRUCTIONS[i].format_map(NAMES | filled[i]) for i in ids)
    doc = {
        "key": key,
        "prompt": f"{request} {instructions}",
        "instruction_id_list": ids,
        "kwargs": [kw[i] for i in ids],
    }
    return doc, response


def ifeval_task(rng: random.Random, docs: int) -> hl.Task:
    """leaderboard_ifeval: each sample's levels replayed by lbnorm's port of lm-eval's checkers."""
    gen = {"until": [], "do_sample": False, "temperature": 0.0, "max_gen_toks": 1280}
    levels = [f"{k}_level_{lv}_acc" for lv in ("strict", "loose") for k in ("prompt", "inst")]
    task = generative(
        "leaderboard_ifeval",
        gen,
        levels,
        dataset_path="wis-k/instruction-following-eval",
        test_split="train",
        doc_to_text="prompt",
        doc_to_target=0,
        process_results=hl.IFEVAL_PROCESS_RESULTS,
        num_fewshot=0,
    )
    key = 1000
    while len(task.samples) < docs:
        key += rng.randint(1, 7)
        doc, response = ifeval_doc(rng, key)
        pairs = zip(doc["instruction_id_list"], doc["kwargs"], strict=True)
        outcomes = [replay(*pair, response) for pair in pairs]
        if any(None in outcome for outcome in outcomes):
            continue  # not settled by the replay: draw another doc
        strict, loose = ([outcome[k] for outcome in outcomes] for k in (0, 1))
        sample = sample_of(len(task.samples), doc, "0", doc["prompt"], task, response)
        values = (all(strict), strict, all(loose), loose)
        task.samples.append(sample | dict(zip(levels, values, strict=True)))
    return task


# -------------------------------------------------------------------------------------- MATH hard
# Each subtask's Level 5 docs (the leaderboard's process_docs keeps those)
MATH_SUBTASKS = {"algebra": 307, "counting_and_prob": 123, "geometry": 132, "prealgebra": 193}
MATH_PROCESS_RESULTS = (
    "def process_results(doc: dict, results: List[str]) -> Dict[str, int]:\n    ..."
)


def latex_answer(rng: random.Random) -> str:
    """An integer, a fraction, a root, an interval or a multiple of pi, as MATH's answers are."""
    kind = rng.random()
    if kind < 0.45:
        return str(rng.randint(-50, 2000))
    if kind < 0.65:
        return f"\\frac{{{rng.randint(1, 40)}}}{{{rng.randint(2, 41)}}}"
    if kind < 0.78:
        return f"{rng.randint(2, 9)}\\sqrt{{{rng.choice([2, 3, 5, 6, 7, 10])}}}"
    if kind < 0.88:
        return f"({rng.randint(-9, 0)},{rng.randint(1, 9)}]"
    return f"\\frac{{{rng.randint(1, 9)}\\pi}}{{{rng.randint(2, 12)}}}"


def latex_prose(rng: random.Random, chars: int) -> str:
    """Sentences with inline equations and align blocks between them."""
    parts: list[str] = []
    while sum(len(part) + 1 for part in parts) < chars:
        draw = rng.random()
        if draw < 0.25:
            a, b = rng.randint(2, 30), rng.randint(2, 30)
            parts.append(f"$x^{{{a}}} + {b}x = {a * b}$")
        elif draw < 0.35:
            a, b, c, d = (rng.randint(2, 99) for _ in range(4))
            align = f"{a}y&={b},\\\\\ny&=\\frac{{{c}}}{{{d}}}"
            parts.append(f"\\begin{{align*}}\n{align}\n\\end{{align*}}")
        else:
            parts.append(sentence(rng, 5, 16))
    return " ".join(parts).replace("Problem", "problem")  # generations stop at "Problem:"


def boxed(rng: random.Random, chars: int, answer: str) -> str:
    """A solution or generation: LaTeX prose, its \\boxed{} answer, half the time the Final Answer line."""
    text = f"{latex_prose(rng, chars)} Therefore, the answer is $\\boxed{{{answer}}}$."
    if rng.random() < 0.5:
        text += f"\nFinal Answer: The final answer is ${answer}$. I hope it is correct."
    return text


def math_tasks(rng: random.Random, n) -> list[hl.Task]:
    """The four subtasks, `n(docs)` docs each, every prompt after the same four examples."""
    shots = "".join(
        f"Problem:\n{latex_prose(rng, rng.randint(80, 250))}\n\nSolution: "
        f"{boxed(rng, rng.randint(150, 450), latex_answer(rng))}\n\n"
        for _ in range(4)
    )
    gen = {"until": ["Problem:"], "do_sample": False, "temperature": 0.0, "max_gen_toks": 1024}
    tasks = []
    for subject, docs in MATH_SUBTASKS.items():
        name = f"leaderboard_math_{subject}_hard"
        task = generative(
            name,
            gen,
            ["exact_match"],
            dataset_path="DigitalLearningGmbH/MATH-lighteval",
            dataset_name=subject.replace("prob", "probability"),
            test_split="test",
            process_docs=hl.MATH_PROCESS_DOCS,
            doc_to_text=hl.MATH_DOC_TO_TEXT,
            doc_to_target="{{answer if few_shot is undefined else solution}}",
            process_results=MATH_PROCESS_RESULTS,
            fewshot_config={"sampler": "first_n"},
            num_fewshot=4,
        )
        for doc_id in range(n(docs)):
            answer = latex_answer(rng)
            problem = latex_prose(rng, rng.randint(150, 600))
            solution = boxed(rng, rng.randint(250, 900), answer)
            assert boxed_answer(solution) == answer
            said = answer if rng.random() < 0.3 else latex_answer(rng)
            response = " " + boxed(rng, rng.randint(460, 1350), said)
            doc = {"problem": problem, "solution": solution, "answer": answer}
            prompt = f"{shots}Problem:\n{problem}\n\nSolution:"
            sample = sample_of(doc_id, doc, answer, prompt, task, response)
            task.samples.append(sample | {"exact_match": int(said == answer)})
        tasks.append(task)
    return tasks
