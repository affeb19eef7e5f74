"""End to end in a real browser: ``advisor ui`` serves the app, headless Chromium uploads a file and
opens the recommendation of a stored analysis; screenshots go to experiments/screenshots/.

Skips (with the reason) when Chromium, its driver or Selenium is missing, so CI without them passes.
Install: ``apt-get install -y chromium chromium-driver`` and ``pip install -e '.[browser]'``; run
with ``pytest -m slow tests/test_app_browser.py``.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a UI server and a browser: about a minute on 2 busy cores

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "experiments" / "screenshots"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
CONLL = (
    "\n\n".join(f"Mary\tB-PER\nvisited\tO\nNew\tB-LOC\nYork\tI-LOC\nin\tO\nMay{i}\tO" for i in range(40))
    + "\n"
)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture()
def server(app_store, tmp_path: Path) -> Iterator[str]:
    """``advisor ui`` on a free port over the synthetic store; stopped (its process group) afterwards."""
    port = _free_port()
    env = {**os.environ, "ADVISOR_UPLOAD_DIR": str(tmp_path / "uploads")}
    command = [sys.executable, "-c", "from advisor.cli import main; main()", "ui", "--port", str(port)]
    log = (tmp_path / "ui.log").open("wb")
    process = subprocess.Popen(
        [*command, "--tracking-uri", app_store.uri], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            time.sleep(0.5)
    else:
        os.killpg(process.pid, signal.SIGTERM)
        pytest.fail("advisor ui did not answer: " + (tmp_path / "ui.log").read_text()[-2000:])
    yield url
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=30)
    log.close()


@pytest.fixture()
def browser(tmp_path: Path) -> Iterator[object]:
    if CHROMIUM is None or DRIVER is None:
        pytest.skip("chromium / chromedriver not installed (apt-get install -y chromium chromium-driver)")
    webdriver = pytest.importorskip(
        "selenium.webdriver", reason="selenium not installed (pip install selenium)"
    )
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
        "--window-size=1400,1000",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=DRIVER), options=options)
    driver.set_page_load_timeout(120)
    yield driver
    driver.quit()


def _wait_for_text(driver: object, text: str, timeout: float = 120) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout).until(
        expected_conditions.text_to_be_present_in_element((By.TAG_NAME, "body"), text)
    )


def _wait_for_element(driver: object, css: str, timeout: float = 120) -> object:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(
        expected_conditions.presence_of_element_located((By.CSS_SELECTOR, css))
    )


def _wait_idle(driver: object, timeout: float = 120) -> None:
    """Until the script has finished (no "running" icon, every figure loaded, twice in a row)."""
    deadline = time.time() + timeout
    quiet = 0
    while time.time() < deadline and quiet < 2:
        running = driver.execute_script(
            "return document.querySelector('[data-testid^=\"stStatusWidgetRunning\"]') !== null"
            " || !Array.from(document.images).every(i => i.complete && i.naturalHeight > 0)"
        )
        quiet = 0 if running else quiet + 1
        time.sleep(0.5)


def _full_page_shot(driver: object, path: Path) -> None:
    """Resize the window to the app's scroll height so one screenshot holds the whole page."""
    _wait_idle(driver)
    height = driver.execute_script(
        "const m = document.querySelector('section.stMain, [data-testid=\"stMain\"]');"
        "return Math.max(document.body.scrollHeight, m ? m.scrollHeight : 0);"
    )
    driver.set_window_size(1400, min(max(int(height) + 200, 1000), 9000))
    time.sleep(2)  # let Streamlit re-lay-out the figures at the new size
    _wait_idle(driver)
    path.parent.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(path))


def test_upload_and_recommendation_in_a_real_browser(
    server: str, browser: object, app_store, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    data = tmp_path / "wnut like.conll"
    data.write_text(CONLL, encoding="utf-8")
    browser.get(server)
    _wait_for_text(browser, "Are contextual embeddings worth it on your data?")
    _wait_for_element(browser, "input[type=file]").send_keys(str(data))
    _wait_for_text(browser, "as a ner dataset")
    _wait_for_text(browser, "mean length")  # the inspect summary table has arrived
    body = browser.find_element(By.TAG_NAME, "body").text
    assert "The same summary advisor inspect prints." in body and "sentences" in body
    assert "Traceback" not in body
    stored = list((tmp_path / "uploads").glob("*/wnut_like.conll"))
    assert len(stored) == 1 and stored[0].read_text(encoding="utf-8") == CONLL
    _full_page_shot(browser, SHOTS / "upload.png")

    from advisor.tracking import load_analysis
    from advisor.verdict import recommend

    rec = recommend(load_analysis(app_store.finished, app_store.uri))
    browser.set_window_size(1400, 1000)
    browser.get(f"{server}/?page=Results&run={app_store.finished}")
    _wait_for_text(browser, f"Verdict: {rec.verdict.upper()}")
    _wait_for_text(browser, "Items: which embeddings got each one right")
    body = browser.find_element(By.TAG_NAME, "body").text
    assert rec.headline in body and "Traceback" not in body
    assert _wait_for_element(browser, "[data-testid=stImage] img, [data-testid=stImage]"), (
        "no figure rendered"
    )
    _full_page_shot(browser, SHOTS / "recommendation.png")

    browser.set_window_size(1400, 1000)
    browser.get(f"{server}/?page=History")
    _wait_for_text(browser, "mlflow ui --backend-store-uri")
    _wait_for_text(browser, "INCONCLUSIVE")
    _full_page_shot(browser, SHOTS / "history.png")
