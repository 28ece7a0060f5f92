/* Planner form: show only the inputs that apply to the chosen workload, box and cloud offering,
   filter the offerings by pricing mode, and say how many instances a commitment reserves by
   default (the server's answer, in the server's words).
   Progressive enhancement: without JavaScript every section stays visible and the form works. */
(function () {
  "use strict";
  var form = document.getElementById("planner-form");
  if (!form) { return; }
  var offering = form.querySelector("select[name='cloud_offering']");
  var filter = document.getElementById("offering-mode-filter");
  var committedDefault = document.getElementById("committed-default");

  function checked(name) {
    var el = form.querySelector("input[name='" + name + "']:checked");
    return el ? el.value : null;
  }

  function show(selector, visible) {
    form.querySelectorAll(selector).forEach(function (el) { el.hidden = !visible; });
  }

  function commitmentSelected() {
    // The server says which modes are commitments (data-commitment), from its table of modes.
    var option = offering && offering.options[offering.selectedIndex];
    return option ? option.getAttribute("data-commitment") === "true" : false;
  }

  function catalogInUse() {
    var useCatalog = form.querySelector("input[name='use_catalog']");
    return !useCatalog || useCatalog.checked;
  }

  function update() {
    var kind = checked("workload_kind");
    show(".workload-steady", kind === "steady");
    show(".workload-tidal", kind === "tidal");
    show(".workload-profile", kind === "profile");
    show(".workload-jobs", kind === "jobs");
    form.querySelectorAll(".job-row").forEach(function (row) {
      var jobKind = row.querySelector("select[name^='job_kind_']");
      var value = jobKind ? jobKind.value : "transformer";
      ["transformer", "dataset", "gpu_hours"].forEach(function (k) {
        row.querySelectorAll(".job-" + k).forEach(function (el) { el.hidden = value !== k; });
      });
    });
    var box = checked("box");
    show(".box-preset", box !== "custom");
    show(".box-custom", box === "custom");
    var useCatalog = form.querySelector("input[name='use_catalog']");
    if (useCatalog) { show(".catalog-choices", useCatalog.checked); }
    // The committed count: for a commitment offering, or for figures typed without the catalog.
    show(".commitment", !catalogInUse() || commitmentSelected());
  }

  // What the hosting field says the catalog picks when it is left to it: the server's words
  // for every preset and currency (#hosting-hints), shown for the chosen ones at once.
  var hintsData = document.getElementById("hosting-hints");
  var hostingHints = hintsData ? JSON.parse(hintsData.textContent) : null;
  function updateHostingHint() {
    var hosting = form.querySelector("select[name='hosting']");
    var preset = form.querySelector("select[name='preset']");
    var currency = form.querySelector("[name='currency']");
    // a custom box's hint stays the server's: it depends on the parts list
    if (!hostingHints || !hosting || !preset || !currency || checked("box") === "custom") { return; }
    var row = hosting.closest("div");
    var hint = row.querySelector("[data-defaulted]");
    if (!hint) {
      hint = document.createElement("div");
      hint.className = "help defaulted";
      hint.setAttribute("data-defaulted", "");
      hosting.insertAdjacentElement("afterend", hint);
    }
    var text = (hostingHints[currency.value] || {})[preset.value];
    var applies = hosting.value === "" && Boolean(text);
    hint.textContent = applies ? text : "";
    hint.hidden = !applies;
    hint.setAttribute("data-preset", applies ? preset.value : "");
  }

  function applyFilter() {
    if (!offering || !filter) { return; }
    var mode = filter.value;
    // "Default for this box and currency" has no mode of its own: an on-demand instance
    // the catalog picks, shown only when every mode is.
    offering.querySelectorAll("option").forEach(function (option) {
      var hide = mode !== "" && option.getAttribute("data-pricing-mode") !== mode;
      option.hidden = hide;
      option.disabled = hide;
    });
    offering.querySelectorAll("optgroup").forEach(function (group) {
      group.hidden = !group.querySelector("option:not([hidden])");
    });
    var current = offering.options[offering.selectedIndex];
    if (current && current.hidden) {
      var first = offering.querySelector("option:not([hidden])");
      if (first) {
        offering.value = first.value;
        offering.dispatchEvent(new Event("change", { bubbles: true }));
      }
    }
  }

  var pending = null;
  function refreshCommittedDefault() {
    if (!committedDefault || !offering || !catalogInUse() || !commitmentSelected()) {
      return;
    }
    var params = new URLSearchParams(new FormData(form));
    params.delete("csrfmiddlewaretoken");
    params.delete("basis");
    if (pending) { pending.abort(); }
    pending = new AbortController();
    fetch(form.getAttribute("data-committed-url") + "?" + params.toString(), {
      headers: { "Accept": "application/json" },
      signal: pending.signal
    }).then(function (response) {
      return response.ok ? response.json() : null;
    }).then(function (answer) {
      if (answer) {
        committedDefault.textContent = answer.text;
        committedDefault.setAttribute("data-count", answer.committed_instances === null ? "" : answer.committed_instances);
      }
    }).catch(function () { /* a newer request replaced this one, or the network failed */ });
  }

  // Job rows beyond the first three wait behind "Add a job" (without the script they all show).
  var addJob = document.getElementById("add-job");
  function hiddenJobs() { return form.querySelectorAll(".job-row[data-extra]"); }
  if (addJob && hiddenJobs().length) {
    hiddenJobs().forEach(function (row) { row.hidden = true; });
    addJob.hidden = false;
    addJob.addEventListener("click", function () {
      var next = form.querySelector(".job-row[data-extra][hidden]");
      if (next) { next.hidden = false; next.removeAttribute("data-extra"); }
      if (!form.querySelector(".job-row[data-extra][hidden]")) { addJob.hidden = true; }
    });
  }

  if (filter) {
    filter.closest(".offering-filter").hidden = false;
    filter.addEventListener("change", applyFilter);
  }
  form.addEventListener("change", function (event) {
    update();
    updateHostingHint();
    if (event.target !== filter && event.target.name !== "committed_instances") {
      refreshCommittedDefault();
    }
  });
  update();
  updateHostingHint();
})();
