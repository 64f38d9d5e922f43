module Shop
  # Mixed into models that keep an audit trail.
  module Auditable
    def audit(event)
      log(event)
      @events = (@events || []) + [event]
    end

    def log(event)
      puts "[audit] #{event}"
    end
  end
end
