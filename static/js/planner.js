/* Planner form: show only the inputs that apply to the chosen workload and box.
   Progressive enhancement: without JavaScript every section stays visible. */
(function () {
  "use strict";
  var form = document.getElementById("planner-form");
  if (!form) { return; }

  function checked(name) {
    var el = form.querySelector("input[name='" + name + "']:checked");
    return el ? el.value : null;
  }

  function show(selector, visible) {
    form.querySelectorAll(selector).forEach(function (el) { el.hidden = !visible; });
  }

  function update() {
    var kind = checked("workload_kind");
    show(".workload-steady", kind === "steady");
    show(".workload-tidal", kind === "tidal");
    show(".workload-profile", kind === "profile");
    var box = checked("box");
    show(".box-preset", box !== "custom");
    show(".box-custom", box === "custom");
    var useCatalog = form.querySelector("input[name='use_catalog']");
    if (useCatalog) { show(".catalog-choices", useCatalog.checked); }
  }

  form.addEventListener("change", update);
  update();
})();
