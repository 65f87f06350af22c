// Reporter: one closing line, "e2e: N passed, N failed" (", N skipped" when
// some were), as the former runner printed. A test that passed when run once
// more after failing on long tasks alone (Playwright's "flaky") counts as
// passed, and is named.

export default class SummaryReporter {
  onBegin(config, suite) {
    this.suite = suite;
  }

  onEnd(result) {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    const again = [];
    const ran = this.suite.allTests().filter((t) => t.results.length > 0);
    if (ran.length === 0 && result.status === 'passed') return; // --list
    for (const test of ran) {
      const outcome = test.outcome();
      if (outcome === 'skipped') counts.skipped += 1;
      else if (outcome === 'unexpected') counts.failed += 1;
      else {
        counts.passed += 1;
        if (outcome === 'flaky') again.push(test.titlePath().filter(Boolean).slice(0, 2).join(' › '));
      }
    }
    for (const t of again) console.log(`e2e: ${t} passed when run again after long tasks`);
    if (result.status === 'interrupted' || result.status === 'timedout') console.log(`e2e: run ${result.status}`);
    console.log(`e2e: ${counts.passed} passed, ${counts.failed} failed${counts.skipped ? `, ${counts.skipped} skipped` : ''}`);
  }

  printsToStdio() {
    return true;
  }
}
