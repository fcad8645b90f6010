#!/usr/bin/env node
// Adds up what a CI run checked and prints one closing line, `N passed, N failed, N skipped` (printed last), the
// plain form CI reads to know that tests ran. Each argument is a result file:
//   *.json with numPassedTests   jest's --json output (npm test, test:infra)
//   *.json with passed/failed    scripts/eval-floors.js --result (one check per floor)
//   *.xml                        a JUnit report (schemathesis: one test per operation)
// A missing or unreadable file is a failure of the tally itself (exit 1): a step whose results
// cannot be read has not been shown to pass.
const fs = require('node:fs');
const path = require('node:path');

function tallyOf(file) {
  const text = fs.readFileSync(file, 'utf8');
  if (file.endsWith('.xml')) {
    const suites = text.match(/<testsuites\b[^>]*>/);
    if (!suites) throw new Error(`${file}: no <testsuites> element`);
    const attribute = (name) => Number((suites[0].match(new RegExp(`\\b${name}="(\\d+)"`)) ?? [])[1] ?? 0);
    const failed = attribute('failures') + attribute('errors');
    const skipped = attribute('skipped');
    return { passed: attribute('tests') - failed - skipped, failed, skipped };
  }
  const json = JSON.parse(text);
  if (typeof json.numPassedTests === 'number') {
    return {
      passed: json.numPassedTests,
      failed: json.numFailedTests + (json.numRuntimeErrorTestSuites ?? 0),
      skipped: json.numPendingTests + (json.numTodoTests ?? 0),
    };
  }
  if (typeof json.passed === 'number' && typeof json.failed === 'number') return { passed: json.passed, failed: json.failed, skipped: 0 };
  throw new Error(`${file}: neither a jest --json report nor an eval-floors result`);
}

function main(files) {
  if (files.length === 0) throw new Error('usage: ci-tally.js RESULT_FILE...');
  const total = { passed: 0, failed: 0, skipped: 0 };
  for (const file of files) {
    const tally = tallyOf(file);
    console.log(`  ${path.basename(file)}: passed ${tally.passed}, failed ${tally.failed}, skipped ${tally.skipped}`);
    for (const key of Object.keys(total)) total[key] += tally[key];
  }
  // The closing line, alone and last: the plain form any CI reader counts.
  console.log(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
  if (total.failed > 0 || total.passed === 0) process.exit(1);
}

try {
  main(process.argv.slice(2));
} catch (error) {
  console.error(`ci-tally: ${error.message}`);
  process.exit(1);
}
