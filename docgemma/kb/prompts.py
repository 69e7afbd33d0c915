"""Prompts of the model-assisted retrieval steps, as named templates."""

from __future__ import annotations

CLASSIFY_CATEGORY = (
    "You sort health questions into topics of a knowledge base of condition pages.\n"
    "Topics:\n{choices}\n\n"
    "Question: {query}\n"
    "Choose the one topic the question is most about."
)

CLASSIFY_SUBCATEGORY = (
    "The health question below is about {category}. Its sub-topics:\n{choices}\n\n"
    "Question: {query}\n"
    "Choose the one sub-topic the question is most about."
)

FILTER_CANDIDATES = (
    "A knowledge-base search for the health question below found these condition pages:\n"
    "{choices}\n\n"
    "Question: {query}\n"
    "List the ids of the pages that could explain or answer the question, most likely first."
)

REWRITE_QUERY = (
    "A search of condition pages found nothing relevant for the text below.\n"
    "Text: {query}\n"
    "{tried}"
    "Rewrite it as a short search query naming the main symptoms or condition in plain "
    "medical words (for example: 'burning pain when passing urine, needing to pee often')."
)

NEXT_STEP = (
    "You steer a search of condition pages for a health question.\n"
    "{state}\n\n"
    "Choose the next step:\n{choices}"
)

SUMMARISE_CONVERSATION = (
    "Earlier in this conversation the person said:\n{earlier}\n\n"
    "Latest message: {query}\n"
    "In one short sentence, say what health problem the conversation is about, with the "
    "symptoms and facts that matter for finding the right condition page."
)
