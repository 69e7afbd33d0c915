# DocGemma as a Hugging Face Docker Space or a container for a clinic or a laptop.
#   docker build -t docgemma .
#   docker run -p 7860:7860 docgemma        # then open http://localhost:7860
# Every install step is docgemma/install_steps.py, the script the replay test runs
# (tests/test_space_replay.py), which also copies exactly the files copied below.
FROM python:3.11-slim

# A C/C++ toolchain and CMake compile the portable llama.cpp engine (AVX2, never AMX).
RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential cmake \
 && rm -rf /var/lib/apt/lists/*

# Spaces run containers as user 1000; the model is assembled in its home folder.
RUN useradd -m -u 1000 user
USER user
ENV HOME=/home/user
WORKDIR /home/user/app

COPY --chown=user pyproject.toml README.md app.py ./
COPY --chown=user docgemma ./docgemma
COPY --chown=user data ./data

RUN python docgemma/install_steps.py --target /home/user/venv

# The Space's conventions: all interfaces, port 7860 (space.yaml's app_port).
ENV PATH=/home/user/venv/bin:$PATH \
    GRADIO_SERVER_NAME=0.0.0.0 \
    GRADIO_SERVER_PORT=7860
EXPOSE 7860
CMD ["python", "app.py"]
